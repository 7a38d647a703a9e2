//! Scan planning, salts, errors and split keys on common key patterns.
#![allow(clippy::unwrap_used, missing_docs)]

use std::ops::Bound;

use basalt_rowkey::hotspot::{analyze, sample_keys, SampleRng};
use basalt_rowkey::split::{bucket_split_keys, bucket_sub_split_keys, call_record_split_keys};
use basalt_rowkey::{
    prefix_successor, FieldType, HashAlgo, KeyError, KeyWarning, Pad, Query, Salt, Schema, SchemaError, TimeUnit,
    TsFormat, Value, Width,
};

fn p5() -> Schema {
    Schema::builder()
        .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
        .literal("_")
        .field("calltime", FieldType::Decimal { digits: 14 })
        .salt(Salt::call_record("phone", "calltime", 6))
        .build()
        .unwrap()
}

#[test]
fn p5_three_months_three_salts() {
    let s = p5();
    let q = Query::new().fixed("13812345678").between(Value::UInt(20210901000000), Value::UInt(20211200000000));
    let plan = s.plan(&q).unwrap();
    assert!(plan.targeted);
    assert_eq!(plan.ranges.len(), 3);
    let got: Vec<(Option<u32>, &[u8], &[u8])> =
        plan.ranges.iter().map(|r| (r.bucket, r.start.as_ref(), r.stop.as_ref())).collect();
    // Buckets from the JVM (KEYS.md): 2021-09 -> 2, 2021-10 -> 4, 2021-11 -> 5.
    assert_eq!(
        got,
        vec![
            (Some(2), &b"2_13812345678_20210901000000"[..], &b"2_13812345678_20211000000000"[..]),
            (Some(4), &b"4_13812345678_20211000000000"[..], &b"4_13812345678_20211100000000"[..]),
            (Some(5), &b"5_13812345678_20211100000000"[..], &b"5_13812345678_20211200000000"[..]),
        ]
    );
    // Every key of the months is inside exactly one range; neighbours are outside.
    for (t, inside) in [
        (20210901000000u64, true),
        (20210915123045, true),
        (20211130235959, true),
        (20210831235959, false),
        (20211201000000, false),
    ] {
        let k = s.encode(&[Value::str("13812345678"), Value::UInt(t)]).unwrap();
        let n = plan.ranges.iter().filter(|r| r.contains(&k)).count();
        assert_eq!(n, usize::from(inside), "{t}");
    }
}

#[test]
fn p5_unfixed_phone_scans_all_buckets() {
    let s = p5();
    let plan = s.plan(&Query::new()).unwrap();
    assert!(!plan.targeted);
    assert_eq!(plan.buckets(), (0..6).collect::<Vec<_>>());
    for (b, r) in plan.ranges.iter().enumerate() {
        assert_eq!(r.start, s.salt_prefix(b as u32));
    }
    // An open-ended time range cannot be enumerated: all buckets.
    let q = Query::new().fixed("13812345678").range(Bound::Included(Value::UInt(20210901000000)), Bound::Unbounded);
    assert_eq!(s.plan(&q).unwrap().ranges.len(), 6);
}

#[test]
fn k3_prefix_never_leaks() {
    let s = Schema::builder()
        .field("host", FieldType::Str(Width::Variable))
        .field("ts", FieldType::I64)
        .salt(Salt::hash(HashAlgo::Crc32, &["host"], 4))
        .build()
        .unwrap();
    let plan = s.plan(&Query::new().fixed("host1")).unwrap();
    assert_eq!(plan.ranges.len(), 1);
    let k1 = s.encode(&[Value::str("host1"), Value::Int(5)]).unwrap();
    let k12 = s.encode(&[Value::str("host12"), Value::Int(5)]).unwrap();
    assert!(plan.ranges[0].contains(&k1));
    assert!(!plan.ranges[0].contains(&k12));
    // Same with a descending string field and no salt.
    let d = Schema::builder()
        .field_desc("host", FieldType::Str(Width::Variable))
        .field("ts", FieldType::I64)
        .build()
        .unwrap();
    let plan = d.plan(&Query::new().fixed("host1")).unwrap();
    let k1 = d.encode(&[Value::str("host1"), Value::Int(5)]).unwrap();
    let k12 = d.encode(&[Value::str("host12"), Value::Int(5)]).unwrap();
    let k = d.encode(&[Value::str("host"), Value::Int(5)]).unwrap();
    assert!(plan.ranges[0].contains(&k1));
    assert!(!plan.ranges[0].contains(&k12));
    assert!(!plan.ranges[0].contains(&k));
}

#[test]
fn descending_range_bounds() {
    let s = Schema::builder()
        .field("id", FieldType::U32)
        .field_desc("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::Binary })
        .build()
        .unwrap();
    let q = Query::new()
        .fixed(Value::UInt(9))
        .range(Bound::Included(Value::Timestamp(100)), Bound::Excluded(Value::Timestamp(200)));
    let plan = s.plan(&q).unwrap();
    let r = &plan.ranges[0];
    for t in [90i64, 100, 150, 199, 200, 250] {
        let k = s.encode(&[Value::UInt(9), Value::Timestamp(t)]).unwrap();
        assert_eq!(r.contains(&k), (100..200).contains(&t), "{t}");
    }
    // Newest first: ts 199 sorts before ts 100.
    let a = s.encode(&[Value::UInt(9), Value::Timestamp(199)]).unwrap();
    let b = s.encode(&[Value::UInt(9), Value::Timestamp(100)]).unwrap();
    assert!(a < b);
}

#[test]
fn reversed_scan_bounds() {
    let s = Schema::builder().field("id", FieldType::U8).field("n", FieldType::U8).build().unwrap();
    let q = Query::new().fixed(Value::UInt(1)).between_inclusive(Value::UInt(3), Value::UInt(5));
    let r = s.plan(&q.reverse(true)).unwrap().ranges[0].clone();
    assert_eq!(r.start.as_ref(), &[1, 3]);
    assert_eq!(r.stop.as_ref(), &[1, 6]);
    let rev = r.reversed();
    // HBase reversed scan: start_row inclusive (largest), stop_row exclusive.
    assert_eq!(rev.start_row.as_ref(), &[1, 6]);
    assert!(rev.drop_start_row, "[1, 6] is a real row outside the range");
    assert_eq!(rev.stop_row.as_ref(), &[1, 3]);
    assert_eq!(rev.missing_row.as_deref(), Some(&[1u8, 3][..]));
    // A prefix-only range: start is not a whole row, so stop_row = start is exact.
    let r = s.plan(&Query::new().fixed(Value::UInt(1))).unwrap().ranges[0].clone();
    let rev = r.reversed();
    assert_eq!(rev.stop_row.as_ref(), &[1]);
    assert_eq!(rev.missing_row, None);
    assert!(!rev.drop_start_row);
}

#[test]
fn prefix_successor_cases() {
    assert_eq!(prefix_successor(b"ab\xff\xff").unwrap().as_ref(), b"ac");
    assert_eq!(prefix_successor(b"\xff"), None);
    assert_eq!(prefix_successor(b""), None);
    // Salt byte 0xFF, all-0xFF prefix: stop is unbounded, range stays in the last bucket.
    let s =
        Schema::builder().field("k", FieldType::U8).field("v", FieldType::U8).salt(Salt::phoenix(256)).build().unwrap();
    let plan = s.plan(&Query::new().fixed(Value::UInt(255))).unwrap();
    assert_eq!(plan.ranges.len(), 256);
    let last = plan.ranges.last().unwrap();
    assert_eq!(last.start.as_ref(), &[255, 255]);
    assert!(last.stop.is_empty());
}

#[test]
fn phoenix_full_key_targets_one_bucket() {
    let s = Schema::builder().field("k", FieldType::Str(Width::Variable)).salt(Salt::phoenix(8)).build().unwrap();
    let key = s.encode(&[Value::str("row1")]).unwrap();
    let plan = s.plan(&Query::new().fixed("row1")).unwrap();
    assert_eq!(plan.ranges.len(), 1);
    assert!(plan.ranges[0].contains(&key));
    assert_eq!(plan.ranges[0].bucket, Some(u32::from(key[0])));
}

#[test]
fn calendar_salt_on_timestamps() {
    let s = Schema::builder()
        .field("user", FieldType::U64)
        .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::Binary })
        .salt(Salt::new(
            basalt_rowkey::SaltStrategy::Hash {
                algo: HashAlgo::Murmur3 { seed: 0 },
                inputs: vec![
                    basalt_rowkey::SaltInput::text("user"),
                    basalt_rowkey::SaltInput::new(
                        "ts",
                        basalt_rowkey::Part::Calendar(basalt_rowkey::CalendarUnit::Month),
                    ),
                ],
                buckets: 64,
            },
            basalt_rowkey::SaltRendering::Bytes(1),
        ))
        .build()
        .unwrap();
    // 2021-01-15 .. 2021-04-15 (ms): four months.
    let (lo, hi) = (1_610_668_800_000i64, 1_618_444_800_000i64);
    let plan = s.plan(&Query::new().fixed(Value::UInt(7)).between(Value::Timestamp(lo), Value::Timestamp(hi))).unwrap();
    assert!(plan.targeted);
    assert!(plan.ranges.len() <= 4 && !plan.ranges.is_empty());
    let mut rng = SampleRng::new(1);
    for _ in 0..500 {
        let t = lo - 10_000_000_000 + rng.below(30_000_000_000) as i64;
        let k = s.encode(&[Value::UInt(7), Value::Timestamp(t)]).unwrap();
        let n = plan.ranges.iter().filter(|r| r.contains(&k)).count();
        assert_eq!(n, usize::from((lo..hi).contains(&t)), "{t}");
    }
}

#[test]
fn errors_are_typed() {
    let s = Schema::builder()
        .field("a", FieldType::U8)
        .field("s", FieldType::Str(Width::Fixed { len: 3, pad: Pad::Right(0) }))
        .soft_limit(3)
        .build()
        .unwrap();
    let e = s.encode(&[Value::UInt(256), Value::str("x")]).unwrap_err();
    assert!(matches!(e, KeyError::ValueTooWide { width: 1, needed: 2, .. }));
    let e = s.encode(&[Value::str("x"), Value::str("x")]).unwrap_err();
    assert!(matches!(e, KeyError::TypeMismatch { .. }));
    let e = s.encode(&[Value::UInt(1), Value::str("toolong")]).unwrap_err();
    assert!(matches!(e, KeyError::ValueTooWide { width: 3, .. }));
    assert!(matches!(s.decode(&[1, b'a', 0, 0, 9]), Err(KeyError::TrailingBytes { count: 1 })));
    assert!(matches!(s.decode(&[1, b'a']), Err(KeyError::Truncated { .. })));
    let rep = s.encode_report(&[Value::UInt(1), Value::str("ab")]).unwrap();
    assert_eq!(rep.warnings, vec![KeyWarning::LongerThanSoftLimit { len: 4, limit: 3 }]);
    let big = Schema::builder().field("b", FieldType::Bytes(Width::Variable)).build().unwrap();
    let e = big.encode(&[Value::Bytes(vec![1; 40_000])]).unwrap_err();
    assert!(matches!(e, KeyError::KeyTooLong { .. }));
    let salted = p5();
    let e = salted.decode(b"9_13812345678_20210915123045").unwrap_err();
    assert!(matches!(e, KeyError::WrongSalt { .. }));
    let e = salted.decode(b"3_13812345678_20210915123045").unwrap_err();
    assert!(matches!(e, KeyError::WrongSalt { .. }));
    assert!(matches!(
        Schema::builder().field("a", FieldType::U8).salt(Salt::phoenix(300)).build(),
        Err(SchemaError::InvalidSalt(_))
    ));
    assert!(matches!(
        Schema::builder().field("a", FieldType::U8).salt(Salt::socorro("zz")).build(),
        Err(SchemaError::UnknownField(_))
    ));
}

#[test]
fn builder_and_toml_agree() {
    let toml = r#"
        soft_limit = 64
        [salt]
        strategy = "call_record"
        buckets = 6
        inputs = ["phone", "calltime"]
        [[fields]]
        name = "phone"
        type = "string"
        width = 11
        pad = " "
        [[fields]]
        type = "literal"
        value = "_"
        [[fields]]
        name = "calltime"
        type = "decimal"
        digits = 14
    "#;
    let from_toml = Schema::from_toml_str(toml).unwrap();
    let built = Schema::builder()
        .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
        .literal("_")
        .field("calltime", FieldType::Decimal { digits: 14 })
        .salt(Salt::call_record("phone", "calltime", 6))
        .soft_limit(64)
        .build()
        .unwrap();
    assert_eq!(from_toml, built);
    assert!(matches!(Schema::from_toml_str("[[fields]]\ntype = \"nope\""), Err(SchemaError::InvalidField { .. })));
    assert!(matches!(Schema::from_toml_str("fields = 3"), Err(SchemaError::Toml(_))));
}

#[test]
fn split_keys_and_hotspots() {
    let s = p5();
    assert_eq!(call_record_split_keys(6).len(), 5);
    let splits = bucket_split_keys(&s);
    assert_eq!(splits.len(), 5);
    let sub = bucket_sub_split_keys(&s, 4);
    assert_eq!(sub.len(), 6 * 4 - 1);
    assert!(sub.windows(2).all(|w| w[0] < w[1]));

    // Unsalted monotonically increasing timestamps: every key in the last region.
    let plain = Schema::builder()
        .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::Binary })
        .build()
        .unwrap();
    let keys = sample_keys(&plain, 1000, |i| vec![Value::Timestamp(1_600_000_000_000 + i as i64)]).unwrap();
    let hot = analyze(&keys, &[keys[100].clone(), keys[200].clone(), keys[300].clone()]);
    assert_eq!(hot.tail_concentration, 1.0);

    // Salted by the phone/month: 1000 phones spread over the six regions.
    let mut rng = SampleRng::new(7);
    let keys = sample_keys(&s, 6000, |i| {
        vec![Value::Str(format!("138{:08}", rng.below(100_000_000))), Value::UInt(20210901000000 + i)]
    })
    .unwrap();
    let report = analyze(&keys, &splits);
    assert_eq!(report.counts.len(), 6);
    assert_eq!(report.empty_regions, 0);
    assert!(report.skew < 1.5, "{report}");
}

#[test]
fn parse_and_display_values() {
    let s = p5();
    let vals: Vec<Value> =
        s.value_fields().zip(["13812345678", "20210915123045"]).map(|(f, t)| f.parse_value(t).unwrap()).collect();
    assert_eq!(&s.encode(&vals).unwrap()[..], b"2_13812345678_20210915123045");
    let f = basalt_rowkey::Field::new("b", FieldType::Bytes(Width::Variable));
    assert_eq!(f.parse_value("0x00ff").unwrap(), Value::Bytes(vec![0, 255]));
    assert_eq!(Value::Bytes(vec![0, 255]).to_string(), "0x00ff");
    let f = basalt_rowkey::Field::new("n", FieldType::U8);
    assert!(f.parse_value("x").is_err());
}

#[test]
fn modulo_salt_small_range_is_targeted() {
    let s = Schema::builder()
        .field("ts", FieldType::U64)
        .field("host", FieldType::Str(Width::Variable))
        .salt(Salt::modulo("ts", 16))
        .build()
        .unwrap();
    let plan = s.plan(&Query::new().between_inclusive(Value::UInt(100), Value::UInt(103))).unwrap();
    assert!(plan.targeted);
    assert_eq!(plan.buckets(), vec![4, 5, 6, 7]);
    let wide = s.plan(&Query::new().between(Value::UInt(0), Value::UInt(1_000_000_000))).unwrap();
    assert!(!wide.targeted);
    assert_eq!(wide.ranges.len(), 16);
    let k = s.encode(&[Value::UInt(102), Value::str("h")]).unwrap();
    assert_eq!(plan.ranges.iter().filter(|r| r.contains(&k)).count(), 1);
}

/// A value running to the end of the key (Phoenix's last VARCHAR) is not prefix-free:
/// fixing it or bounding a range by it must not take in its extensions.
#[test]
fn rest_of_key_plans_exact_bounds() {
    use basalt_rowkey::{Field, Order};
    for order in [Order::Asc, Order::Desc] {
        let s = Schema::builder()
            .field("host", FieldType::Str(Width::Delimited(0)))
            .push(Field::new("metric", FieldType::Str(Width::Rest)).with_order(order))
            .salt(Salt::phoenix(4))
            .build()
            .unwrap();
        let key = |m: &str| s.encode(&[Value::str("h"), Value::str(m)]).unwrap();
        let in_plan = |q: &Query, k: &[u8]| s.plan(q).unwrap().ranges.iter().any(|r| r.contains(k));
        let exact = Query::new().fixed("h").fixed("ab");
        assert!(in_plan(&exact, &key("ab")), "{order:?}");
        assert!(!in_plan(&exact, &key("abc")), "{order:?}");
        let upto = Query::new().fixed("h").between_inclusive(Value::str("aa"), Value::str("ab"));
        assert!(in_plan(&upto, &key("ab")) && in_plan(&upto, &key("aa")) && in_plan(&upto, &key("aaz")), "{order:?}");
        assert!(!in_plan(&upto, &key("abc")) && !in_plan(&upto, &key("a")), "{order:?}");
        let above =
            Query::new().fixed("h").range(std::ops::Bound::Excluded(Value::str("ab")), std::ops::Bound::Unbounded);
        assert!(in_plan(&above, &key("abc")) && !in_plan(&above, &key("ab")), "{order:?}");
    }
}

/// The call-record salt at one region pads like the original code (`00_`), and the counts
/// where the original code misplaces its last salt are refused with the reason and counts
/// that work.
#[test]
fn call_record_edge_region_counts() {
    let calls = |n: u32| {
        Schema::builder()
            .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
            .literal("_")
            .field("calltime", FieldType::Decimal { digits: 14 })
            .salt(Salt::call_record("phone", "calltime", n))
            .build()
    };
    let key = calls(1).unwrap().encode(&[Value::str("13812345678"), Value::UInt(20210915123045)]).unwrap();
    assert_eq!(&key[..3], b"00_");
    for (n, ok) in [(11, "use 10 or 12 regions"), (101, "use 100 or 102 regions")] {
        let e = calls(n).unwrap_err().to_string();
        assert!(e.contains("sorts between `1_` and `2_`") && e.contains(ok), "{e}");
    }
    assert!(calls(12).is_ok() && calls(100).is_ok());
}
