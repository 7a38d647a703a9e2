//! Property tests: order preservation, round trips, prefix containment, salt ranges,
//! and decoding of arbitrary bytes.
#![allow(clippy::unwrap_used, missing_docs)]

use std::cmp::Ordering;

use basalt_rowkey::{
    EnumCodes, FieldType, HashAlgo, Order, Pad, Query, Salt, Schema, TimeUnit, TsFormat, Value, Width,
};
use proptest::prelude::*;

fn one(ty: FieldType, order: Order) -> Schema {
    let b = Schema::builder();
    let b = match order {
        Order::Asc => b.field("f", ty),
        Order::Desc => b.field_desc("f", ty),
    };
    b.build().unwrap()
}

/// Checks order and round trip of `a` and `b` for `ty` in both orders.
fn check(ty: FieldType, a: Value, b: Value, logical: Ordering) -> Result<(), TestCaseError> {
    for order in [Order::Asc, Order::Desc] {
        let s = one(ty.clone(), order);
        let (ea, eb) = (s.encode(std::slice::from_ref(&a)).unwrap(), s.encode(std::slice::from_ref(&b)).unwrap());
        let want = if order == Order::Asc { logical } else { logical.reverse() };
        prop_assert_eq!(ea.cmp(&eb), want, "{:?} {:?} {:?}", order, a, b);
        prop_assert_eq!(&s.decode(&ea).unwrap().values, &vec![a.clone()]);
        prop_assert_eq!(&s.decode(&eb).unwrap().values, &vec![b.clone()]);
    }
    Ok(())
}

fn no_nul(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[a-z0-9\u{80}-\u{3000}]{{0,{max}}}")).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn unsigned(a: u64, b: u64, w in 0usize..4) {
        let (ty, mask) = [(FieldType::U8, 0xFF), (FieldType::U16, 0xFFFF), (FieldType::U32, 0xFFFF_FFFF), (FieldType::U64, u64::MAX)][w].clone();
        let (a, b) = (a & mask, b & mask);
        check(ty, Value::UInt(a), Value::UInt(b), a.cmp(&b))?;
    }

    #[test]
    fn signed(a: i64, b: i64, w in 0usize..4) {
        let ty = [FieldType::I8, FieldType::I16, FieldType::I32, FieldType::I64][w].clone();
        let bits = [8u32, 16, 32, 64][w];
        let shrink = |x: i64| if bits == 64 { x } else { (x << (64 - bits)) >> (64 - bits) };
        let (a, b) = (shrink(a), shrink(b));
        check(ty, Value::Int(a), Value::Int(b), a.cmp(&b))?;
    }

    #[test]
    fn floats(a: f64, b: f64, x: f32, y: f32) {
        check(FieldType::F64, Value::F64(a), Value::F64(b), a.total_cmp(&b))?;
        check(FieldType::F32, Value::F32(x), Value::F32(y), x.total_cmp(&y))?;
    }

    #[test]
    fn phoenix_floats(a: f64, b: f64, x: f32, y: f32) {
        // Phoenix canonicalizes NaN (doubleToLongBits), so NaNs do not round-trip bitwise.
        prop_assume!(!a.is_nan() && !b.is_nan() && !x.is_nan() && !y.is_nan());
        check(FieldType::PhoenixDouble, Value::F64(a), Value::F64(b), a.total_cmp(&b))?;
        check(FieldType::PhoenixFloat, Value::F32(x), Value::F32(y), x.total_cmp(&y))?;
    }

    #[test]
    fn rest_of_key(a: Vec<u8>, b: Vec<u8>) {
        // Descending order holds except for values ending in 0x00 (KEYS.md).
        prop_assume!(a.last() != Some(&0) && b.last() != Some(&0));
        check(FieldType::Bytes(Width::Rest), Value::Bytes(a.clone()), Value::Bytes(b.clone()), a.cmp(&b))?;
    }

    #[test]
    fn bools(a: bool, b: bool) {
        check(FieldType::Bool, Value::Bool(a), Value::Bool(b), a.cmp(&b))?;
    }

    #[test]
    fn variable_bytes_and_strings(a: Vec<u8>, b: Vec<u8>, s: String, t: String) {
        check(FieldType::Bytes(Width::Variable), Value::Bytes(a.clone()), Value::Bytes(b.clone()), a.cmp(&b))?;
        check(FieldType::Str(Width::Variable), Value::Str(s.clone()), Value::Str(t.clone()), s.cmp(&t))?;
    }

    #[test]
    fn fixed_and_delimited_strings(s in no_nul(6), t in no_nul(6)) {
        let fixed = FieldType::Str(Width::Fixed { len: 24, pad: Pad::Right(0) });
        check(fixed, Value::Str(s.clone()), Value::Str(t.clone()), s.cmp(&t))?;
        check(FieldType::Str(Width::Delimited(0)), Value::Str(s.clone()), Value::Str(t.clone()), s.cmp(&t))?;
        // Reversed strings round-trip and order by the reversed text.
        let (rs, rt): (String, String) = (s.chars().rev().collect(), t.chars().rev().collect());
        check(FieldType::ReversedStr(Width::Variable), Value::Str(s), Value::Str(t), rs.cmp(&rt))?;
    }

    #[test]
    fn decimals_and_timestamps(a in 0u64..1_000_000, b in 0u64..1_000_000, x: i64, y: i64) {
        check(FieldType::Decimal { digits: 6 }, Value::UInt(a), Value::UInt(b), a.cmp(&b))?;
        let bin = FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::Binary };
        check(bin, Value::Timestamp(x), Value::Timestamp(y), x.cmp(&y))?;
        let (x, y) = (x.checked_abs().unwrap_or(0), y.checked_abs().unwrap_or(0));
        let rev = FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::ReverseLong };
        let s = one(rev, Order::Asc);
        let (ex, ey) = (s.encode(&[Value::Timestamp(x)]).unwrap(), s.encode(&[Value::Timestamp(y)]).unwrap());
        prop_assert_eq!(ex.cmp(&ey), y.cmp(&x)); // newest first
        prop_assert_eq!(&s.decode(&ex).unwrap().values, &vec![Value::Timestamp(x)]);
    }

    #[test]
    fn enums(i in 0usize..4, j in 0usize..4) {
        let names = ["taobao", "jd", "pdd", "tmall"];
        let codes = ["tb", "jd", "pd", "tm"];
        let e = EnumCodes::new(names.iter().zip(codes.iter()).map(|(n, c)| (*n, c.as_bytes().to_vec()))).unwrap();
        check(FieldType::Enum(e), Value::str(names[i]), Value::str(names[j]), codes[i].cmp(codes[j]))?;
    }

    /// Tuples with a variable-length field first: termination keeps the tuple order,
    /// in all four order combinations.
    #[test]
    fn composite_order(a: Vec<u8>, b: Vec<u8>, x: u8, y: u8, o1 in 0usize..2, o2 in 0usize..2) {
        let ords = [Order::Asc, Order::Desc];
        let f = |n: &str, ty: FieldType, o: Order| basalt_rowkey::Field::new(n, ty).with_order(o);
        let s = Schema::builder()
            .push(f("a", FieldType::Bytes(Width::Variable), ords[o1]))
            .push(f("x", FieldType::U8, ords[o2]))
            .build().unwrap();
        let ka = s.encode(&[Value::Bytes(a.clone()), Value::UInt(u64::from(x))]).unwrap();
        let kb = s.encode(&[Value::Bytes(b.clone()), Value::UInt(u64::from(y))]).unwrap();
        let c1 = if o1 == 0 { a.cmp(&b) } else { b.cmp(&a) };
        let c2 = if o2 == 0 { x.cmp(&y) } else { y.cmp(&x) };
        prop_assert_eq!(ka.cmp(&kb), c1.then(c2));
        let d = s.decode(&ka).unwrap();
        prop_assert_eq!(d.values, vec![Value::Bytes(a), Value::UInt(u64::from(x))]);
    }

    /// Every key whose first field equals the query's lies in the planned range; no other
    /// key does (K3), salted and unsalted, ascending and descending.
    #[test]
    fn prefix_containment(p: Vec<u8>, keys: Vec<(Vec<u8>, u16)>, desc: bool, salted: bool) {
        let mut b = Schema::builder();
        b = if desc { b.field_desc("a", FieldType::Bytes(Width::Variable)) } else { b.field("a", FieldType::Bytes(Width::Variable)) };
        b = b.field("n", FieldType::U16);
        if salted {
            b = b.salt(Salt::hash(HashAlgo::Murmur3 { seed: 1 }, &["a"], 8));
        }
        let s = b.build().unwrap();
        let plan = s.plan(&Query::new().fixed(Value::Bytes(p.clone()))).unwrap();
        prop_assert_eq!(plan.ranges.len(), 1);
        let mut all = keys;
        all.push((p.clone(), 7));
        let mut ext = p.clone();
        ext.push(0);
        all.push((ext, 7));
        for (a, n) in all {
            let k = s.encode(&[Value::Bytes(a.clone()), Value::UInt(u64::from(n))]).unwrap();
            prop_assert_eq!(plan.ranges[0].contains(&k), a == p);
        }
    }

    /// Ranges on the second field hold exactly the keys inside the range, in every bucket.
    #[test]
    fn range_containment(lo: i32, hi: i32, vals: Vec<i32>, desc: bool) {
        let mut b = Schema::builder().field("id", FieldType::U8);
        b = if desc { b.field_desc("v", FieldType::I32) } else { b.field("v", FieldType::I32) };
        let s = b.salt(Salt::random(4)).build().unwrap();
        let plan = s.plan(&Query::new().fixed(Value::UInt(3)).between(Value::Int(i64::from(lo)), Value::Int(i64::from(hi)))).unwrap();
        for v in vals.into_iter().chain([lo, hi]) {
            for bucket in 0..4 {
                let k = s.encode_with_bucket(&[Value::UInt(3), Value::Int(i64::from(v))], bucket).unwrap();
                let n = plan.ranges.iter().filter(|r| r.contains(&k)).count();
                prop_assert_eq!(n, usize::from(lo <= v && v < hi));
            }
        }
    }

    /// P5 (the call-record salt): for random phones, times and month-aligned or arbitrary ranges,
    /// a key is in exactly one planned range iff its phone and time match the query, and
    /// the targeted plan never scans more buckets than it needs.
    #[test]
    fn time_bucketed_salt_containment(
        phone in 0u64..1000,
        other in 0u64..1000,
        start in 0u64..36,
        len in 0u64..14,
        times in proptest::collection::vec((0u64..40, 1u64..29, 0u64..1_000_000), 1..20),
    ) {
        let s = Schema::builder()
            .field("phone", FieldType::Decimal { digits: 11 })
            .literal("_")
            .field("calltime", FieldType::Decimal { digits: 14 })
            .salt(Salt::call_record("phone", "calltime", 6))
            .build().unwrap();
        let month = |m: u64| 202_000 + (m / 12) * 100 + m % 12 + 1;
        let lo = month(start) * 100_000_000;
        let hi = month(start + len) * 100_000_000 + 28_000_000;
        let p = 13_800_000_000 + phone;
        let plan = s.plan(&Query::new().fixed(Value::UInt(p)).between(Value::UInt(lo), Value::UInt(hi))).unwrap();
        prop_assert!(plan.targeted);
        for (m, d, hms) in times {
            let t = month(m) * 100_000_000 + d * 1_000_000 + hms;
            for ph in [p, 13_800_000_000 + other] {
                let k = s.encode(&[Value::UInt(ph), Value::UInt(t)]).unwrap();
                let n = plan.ranges.iter().filter(|r| r.contains(&k)).count();
                prop_assert_eq!(n, usize::from(ph == p && lo <= t && t < hi));
            }
        }
    }

    /// Ranges on a K6 `reverse_long` timestamp (newest first) hold exactly the keys in range.
    #[test]
    fn reverse_long_range_containment(lo in 0i64..1_000_000, len in 0i64..1_000_000, ts in proptest::collection::vec(0i64..3_000_000, 1..30)) {
        let s = Schema::builder()
            .field("id", FieldType::U16)
            .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::ReverseLong })
            .salt(Salt::hash(HashAlgo::Crc32, &["id"], 8))
            .build().unwrap();
        let hi = lo + len;
        let plan = s.plan(&Query::new().fixed(Value::UInt(5)).between(Value::Timestamp(lo), Value::Timestamp(hi))).unwrap();
        for t in ts.into_iter().chain([lo, hi]) {
            let k = s.encode(&[Value::UInt(5), Value::Timestamp(t)]).unwrap();
            let n = plan.ranges.iter().filter(|r| r.contains(&k)).count();
            prop_assert_eq!(n, usize::from(lo <= t && t < hi));
        }
    }

    /// Every strategy gives buckets in [0, N).
    #[test]
    fn salts_in_range(text in "[0-9]{11}", n in 1u32..300, ts in 0u64..99_999_999_999_999) {
        let salts = vec![
            Salt::hash(HashAlgo::JavaString, &["phone"], n),
            Salt::hash(HashAlgo::Md5, &["phone"], n),
            Salt::hash(HashAlgo::Crc32, &["phone", "t"], n),
            Salt::hash(HashAlgo::Murmur3 { seed: 9 }, &["t"], n),
            Salt::modulo("t", n),
            // The call-record salt pads to the width of N - 2: N = 11 or 101 would mix widths (rejected).
            Salt::call_record("phone", "t", if n == 11 || n == 101 { n + 1 } else { n.max(3) }),
            Salt::phone_year("phone", "t", n),
            Salt::random(n),
            Salt::phoenix(n.min(256)),
            Salt::md5_hex_prefix(&["phone"], 2),
            Salt::hbasewd_one_byte_prefix(u8::try_from(n.min(127)).unwrap()),
        ];
        for salt in salts {
            let s = Schema::builder()
                .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
                .literal("_")
                .field("t", FieldType::Decimal { digits: 14 })
                .salt(salt)
                .build().unwrap();
            let k = s.encode_report(&[Value::Str(text.clone()), Value::UInt(ts)]).unwrap();
            let b = k.bucket.unwrap();
            prop_assert!(b < s.bucket_count().unwrap());
            prop_assert_eq!(s.decode(&k.key).unwrap().bucket, Some(b));
        }
    }

    /// Decoding arbitrary bytes never panics (the cargo-fuzz target does the same).
    #[test]
    fn decode_arbitrary_bytes(data: Vec<u8>) {
        for s in fuzz_schemas() {
            let _ = s.decode(&data);
            let _ = s.logical_key(&data);
        }
    }
}

fn fuzz_schemas() -> Vec<Schema> {
    let ts = FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::ReverseLong };
    vec![
        Schema::builder()
            .field("a", FieldType::Str(Width::Variable))
            .field_desc("b", FieldType::Bytes(Width::Variable))
            .field("c", FieldType::F64)
            .field("t", ts)
            .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["a"], 16))
            .build()
            .unwrap(),
        Schema::builder()
            .field("p", FieldType::Str(Width::Fixed { len: 4, pad: Pad::Left(b'0') }))
            .literal("_")
            .field("d", FieldType::Decimal { digits: 20 })
            .field_desc("s", FieldType::Str(Width::Delimited(b'|')))
            .salt(Salt::call_record("p", "d", 12))
            .build()
            .unwrap(),
        // Phoenix-style columns with HBaseWD's hash prefix (extra negative bucket).
        Schema::builder()
            .field_desc("v", FieldType::Str(Width::Delimited(0)))
            .field("x", FieldType::PhoenixDouble)
            .field_desc("y", FieldType::PhoenixFloat)
            .field_desc("r", FieldType::Bytes(Width::Rest))
            .salt(Salt::hbasewd_hash_prefix(10))
            .build()
            .unwrap(),
        Schema::builder()
            .field("m", FieldType::Bytes(Width::Fixed { len: 3, pad: Pad::Right(0) }))
            .field("t", FieldType::U32)
            .field("tags", FieldType::Bytes(Width::Rest))
            .salt(Salt::opentsdb(8, 20, &["m", "tags"]))
            .build()
            .unwrap(),
        Schema::builder().field("ts", FieldType::U64).salt(Salt::hbase_book_timestamp("ts", 16)).build().unwrap(),
        Schema::builder()
            .field("date", FieldType::Decimal { digits: 6 })
            .field("ooid", FieldType::Str(Width::Fixed { len: 36, pad: Pad::Right(b' ') }))
            .salt(Salt::socorro("ooid"))
            .build()
            .unwrap(),
    ]
}

/// The ordering limits KEYS.md states are real: padding above value bytes and values
/// holding bytes below the delimiter break byte order.
#[test]
fn documented_order_limits() {
    let padded = one(FieldType::Str(Width::Fixed { len: 2, pad: Pad::Right(b' ') }), Order::Asc);
    let (a, a_tab) = (padded.encode(&[Value::str("a")]).unwrap(), padded.encode(&[Value::str("a\t")]).unwrap());
    assert!(a_tab < a, "\"a\\t\" sorts before \"a\" with ' ' padding");
    let delimited = one(FieldType::Str(Width::Delimited(b'_')), Order::Asc);
    let (a, a_b) = (delimited.encode(&[Value::str("a")]).unwrap(), delimited.encode(&[Value::str("aB")]).unwrap());
    assert!(a > a_b, "\"a_\" sorts after \"aB_\"");
    let rest = one(FieldType::Bytes(Width::Rest), Order::Desc);
    let (a, a0) = (rest.encode(&[Value::bytes(*b"a")]).unwrap(), rest.encode(&[Value::bytes(*b"a\0")]).unwrap());
    assert!(a < a0, "descending rest: a value ending in 0x00 sorts after its prefix");
}
