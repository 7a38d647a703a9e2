//! Compares Basalt with the real systems, byte for byte, on the vectors that
//! `vectors/regen.sh` generates by running them (Phoenix 5.1.3, OpenTSDB 2.4.1 and
//! HBaseWD 0.1.0 jars, the published salts' Java, Socorro's row-id function). Every case must
//! match, except the refusals KEYS.md documents, which are counted and checked to be
//! refusals. `cargo test -p basalt-rowkey --test systems -- --nocapture` prints the counts.
#![allow(clippy::unwrap_used, missing_docs)]

use basalt_rowkey::hash::{self, JavaBucketForm, JavaHash};
use basalt_rowkey::{split, FieldType, Order, Pad, Salt, SaltRendering, Schema, Value, Width};

fn rows(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/vectors/generated/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (run vectors/regen.sh)"));
    let rows: Vec<Vec<String>> = text.lines().map(|l| l.split('\t').map(str::to_owned).collect()).collect();
    assert!(rows.len() >= 100, "{name}: only {} cases", rows.len());
    rows
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

fn text(s: &str) -> String {
    String::from_utf8(unhex(s)).unwrap()
}

/// Counts of one preset's comparison.
struct Tally {
    name: &'static str,
    cases: usize,
    refused: usize,
    mismatches: Vec<String>,
}

impl Tally {
    fn new(name: &'static str) -> Tally {
        Tally { name, cases: 0, refused: 0, mismatches: Vec::new() }
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.cases += 1;
        if !ok {
            self.mismatches.push(what());
        }
    }

    fn refusal(&mut self) {
        self.cases += 1;
        self.refused += 1;
    }

    fn finish(self) {
        println!(
            "{}: {} cases, {} mismatches, {} documented refusals",
            self.name,
            self.cases,
            self.mismatches.len(),
            self.refused
        );
        assert!(
            self.mismatches.is_empty(),
            "{}: {} mismatches, first: {:?}",
            self.name,
            self.mismatches.len(),
            &self.mismatches[..self.mismatches.len().min(5)]
        );
    }
}

/// Encodes, compares with the expected key, and checks that the key decodes to values
/// that encode to the same key.
fn same_key(schema: &Schema, values: &[Value], want: &[u8]) -> Result<(), String> {
    let got = schema.encode(values).map_err(|e| format!("encode: {e}"))?;
    if got.as_ref() != want {
        return Err(format!("got {got:02x?} want {want:02x?}"));
    }
    let back = schema.decode(want).map_err(|e| format!("decode: {e}"))?;
    let again = schema.encode(&back.values).map_err(|e| format!("re-encode: {e}"))?;
    if again.as_ref() != want {
        return Err("decode/encode does not round-trip".into());
    }
    Ok(())
}

fn rest_bytes_schema(salt: Salt) -> Schema {
    Schema::builder().field("k", FieldType::Bytes(Width::Rest)).salt(salt).build().unwrap()
}

#[test]
fn hbasewd_round_robin() {
    let mut t = Tally::new("HBaseWD RowKeyDistributorByOneBytePrefix");
    for r in rows("hbasewd_round_robin.tsv") {
        let n: u8 = r[0].parse().unwrap();
        let s = Schema::builder().field("k", FieldType::U8).salt(Salt::hbasewd_one_byte_prefix(n)).build().unwrap();
        let want = unhex(&r[1]);
        for (i, w) in want.iter().enumerate() {
            let got = s.encode(&[Value::UInt(7)]).unwrap();
            t.check(got[0] == *w, || format!("n={n} write {i}: {} != {w}", got[0]));
        }
    }
    t.finish();
}

#[test]
fn hbasewd_hash_prefix() {
    let mut t = Tally::new("HBaseWD RowKeyDistributorByHashPrefix(OneByteSimpleHash)");
    for r in rows("hbasewd_hash.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let s = rest_bytes_schema(Salt::hbasewd_hash_prefix(n));
        let res = same_key(&s, &[Value::Bytes(unhex(&r[1]))], &unhex(&r[2]));
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}

#[test]
fn phoenix_salt_and_splits() {
    let mut t = Tally::new("Phoenix SALT_BUCKETS (SaltingUtil)");
    for r in rows("phoenix_salt.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let key = unhex(&r[1]);
        let mut want = vec![r[2].parse::<i8>().unwrap() as u8];
        want.extend_from_slice(&key);
        let res = same_key(&rest_bytes_schema(Salt::phoenix(n)), &[Value::Bytes(key)], &want);
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    for r in rows("phoenix_splits.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let want: Vec<Vec<u8>> =
            r.get(1).map(|k| k.split(' ').filter(|x| !x.is_empty()).map(unhex).collect()).unwrap_or_default();
        let got: Vec<Vec<u8>> =
            split::bucket_split_keys(&rest_bytes_schema(Salt::phoenix(n))).iter().map(|b| b.to_vec()).collect();
        t.check(got == want, || format!("splits n={n}"));
    }
    t.finish();
}

fn phoenix_type(name: &str) -> FieldType {
    match name {
        "DOUBLE" => FieldType::PhoenixDouble,
        "FLOAT" => FieldType::PhoenixFloat,
        "SMALLINT" => FieldType::I16,
        "TINYINT" => FieldType::I8,
        "INTEGER" => FieldType::I32,
        "BIGINT" => FieldType::I64,
        "VARCHAR" => FieldType::Str(Width::Rest),
        other => panic!("type {other}"),
    }
}

fn typed(s: &str) -> Value {
    let (kind, v) = s.split_once(':').unwrap();
    match kind {
        "f64b" => Value::F64(f64::from_bits(u64::from_str_radix(v, 16).unwrap())),
        "f32b" => Value::F32(f32::from_bits(u32::from_str_radix(v, 16).unwrap())),
        "i" => Value::Int(v.parse().unwrap()),
        "x" => Value::Str(text(v)),
        other => panic!("value kind {other}"),
    }
}

fn order(s: &str) -> Order {
    if s == "DESC" {
        Order::Desc
    } else {
        Order::Asc
    }
}

#[test]
fn phoenix_types() {
    let mut t = Tally::new("Phoenix column types (PDataType.toBytes)");
    for r in rows("phoenix_types.tsv") {
        let s = Schema::builder()
            .push(basalt_rowkey::Field::new("c", phoenix_type(&r[0])).with_order(order(&r[1])))
            .build()
            .unwrap();
        let v = typed(&r[2]);
        let mut want = unhex(&r[3]);
        if r[0] == "VARCHAR" && r[1] == "DESC" {
            // As the last key column, PTableImpl.newKey follows a DESC VARCHAR with 0xFF.
            want.push(0xFF);
        }
        let res = same_key(&s, std::slice::from_ref(&v), &want).and_then(|()| {
            let back = s.decode(&want).map_err(|e| e.to_string())?;
            // NaNs are canonicalized as Java's doubleToLongBits does; other values round-trip.
            let nan = matches!(v, Value::F64(x) if x.is_nan()) || matches!(v, Value::F32(x) if x.is_nan());
            (nan || back.values == vec![v.clone()]).then_some(()).ok_or_else(|| "decoded value differs".to_owned())
        });
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}

fn phoenix_layout(name: &str) -> Schema {
    let (a, d) = (Order::Asc, Order::Desc);
    let (salt, cols): (Option<u32>, Vec<(FieldType, Order)>) = match name {
        "p_host_ts_metric" => (
            Some(8),
            vec![(FieldType::Str(Width::Delimited(0)), a), (FieldType::I64, a), (FieldType::Str(Width::Rest), a)],
        ),
        "p_host_ts_metric_desc" => (
            Some(8),
            vec![(FieldType::Str(Width::Delimited(0)), d), (FieldType::I64, d), (FieldType::Str(Width::Rest), d)],
        ),
        "p_numbers" => (
            None,
            vec![
                (FieldType::I32, a),
                (FieldType::PhoenixDouble, d),
                (FieldType::PhoenixFloat, a),
                (FieldType::I16, d),
                (FieldType::I8, a),
                (FieldType::Str(Width::Rest), d),
            ],
        ),
        "p_name_price" => (Some(256), vec![(FieldType::Str(Width::Delimited(0)), d), (FieldType::PhoenixDouble, a)]),
        other => panic!("layout {other}"),
    };
    let mut b = Schema::builder();
    for (i, (ty, o)) in cols.into_iter().enumerate() {
        b = b.push(basalt_rowkey::Field::new(format!("c{i}"), ty).with_order(o));
    }
    if let Some(n) = salt {
        b = b.salt(Salt::phoenix(n));
    }
    b.build().unwrap()
}

#[test]
fn phoenix_composite_keys() {
    let mut t = Tally::new("Phoenix composite row keys (PTableImpl.newKey layout)");
    for r in rows("phoenix_keys.tsv") {
        let s = phoenix_layout(&r[0]);
        let values: Vec<Value> = r[1].split(" ; ").map(typed).collect();
        let res = same_key(&s, &values, &unhex(&r[2]));
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}

#[test]
fn opentsdb() {
    let mut t = Tally::new("OpenTSDB RowKey.prefixKeyWithSalt");
    for r in rows("opentsdb.tsv") {
        let (width, buckets): (u8, u32) = (r[0].parse().unwrap(), r[1].parse().unwrap());
        let s = Schema::builder()
            .field("metric", FieldType::Bytes(Width::Fixed { len: 3, pad: Pad::Right(0) }))
            .field("ts", FieldType::U32)
            .field("tags", FieldType::Bytes(Width::Rest))
            .salt(Salt::opentsdb(width, buckets, &["metric", "tags"]))
            .build()
            .unwrap();
        let values = [Value::Bytes(unhex(&r[2])), Value::UInt(r[3].parse().unwrap()), Value::Bytes(unhex(&r[4]))];
        let res = same_key(&s, &values, &unhex(&r[5]));
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}

#[test]
fn socorro() {
    let mut t = Tally::new("Socorro ooid_to_row_id");
    let s = Schema::builder()
        .field("date", FieldType::Decimal { digits: 6 })
        .field("ooid", FieldType::Str(Width::Fixed { len: 36, pad: Pad::Right(b' ') }))
        .salt(Salt::socorro("ooid"))
        .build()
        .unwrap();
    for r in rows("socorro.tsv") {
        let ooid = &r[0];
        let date: u64 = ooid[ooid.len() - 6..].parse().unwrap();
        let res = same_key(&s, &[Value::UInt(date), Value::str(ooid.as_str())], &unhex(&r[1]));
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
        // A date that is not the id's own is refused (Socorro takes it from the id).
        let wrong = s.encode(&[Value::UInt((date + 1) % 1_000_000), Value::str(ooid.as_str())]);
        t.check(wrong.is_err(), || format!("{ooid}: wrong date accepted"));
    }
    t.finish();
}

#[test]
fn call_record() {
    let mut t = Tally::new("call record getRagionNum + rowkey");
    for r in rows("call_record.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let (tel, date) = (text(&r[1]), text(&r[2]));
        let schema = Schema::builder()
            .field("phone", FieldType::Str(Width::Delimited(b'_')))
            .field("calltime", FieldType::Str(Width::Rest))
            .salt(Salt::call_record("phone", "calltime", n))
            .build();
        let want = unhex(&r[3]);
        let values = [Value::str(tel.as_str()), Value::str(date.as_str())];
        match schema {
            // N = 10^k + 1: refused (KEYS.md), with the reason and two counts that work.
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains("use") && msg.contains("regions"), "{msg}");
                assert_eq!(
                    n.to_string().trim_start_matches('1').trim_end_matches('1'),
                    "0".repeat(n.to_string().len() - 2)
                );
                t.refusal();
            }
            // A negative salt (the hashes XOR to Integer.MIN_VALUE): refused (KEYS.md).
            Ok(s) if want.first() == Some(&b'-') => {
                let e = s.encode(&values).unwrap_err().to_string();
                assert!(e.contains("Integer.MIN_VALUE"), "{e}");
                t.refusal();
            }
            Ok(s) => {
                let res = same_key(&s, &values, &want);
                t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
            }
        }
    }
    for r in rows("call_record_splits.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let want: Vec<Vec<u8>> =
            r.get(1).map(|k| k.split(' ').filter(|x| !x.is_empty()).map(unhex).collect()).unwrap_or_default();
        let got: Vec<Vec<u8>> = split::call_record_split_keys(n).iter().map(|b| b.to_vec()).collect();
        t.check(got == want, || format!("splits n={n}"));
    }
    t.finish();
}

/// The call-record salt with phones holding characters outside the BMP: the last four UTF-16 units
/// (Java's `substring(length - 4)`, which may split a surrogate pair) feed the hash, and
/// a phone shorter than four units is refused, as the original Java throws.
#[test]
fn call_record_utf16_units() {
    let mut t = Tally::new("call record with UTF-16 phones");
    for r in rows("call_record_utf16.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let (tel, date) = (text(&r[1]), text(&r[2]));
        let schema = Schema::builder()
            .field("phone", FieldType::Str(Width::Delimited(b'_')))
            .field("calltime", FieldType::Str(Width::Rest))
            .salt(Salt::call_record("phone", "calltime", n))
            .build()
            .unwrap();
        let values = [Value::str(tel.as_str()), Value::str(date.as_str())];
        if r[3] == "ERR" {
            let e = schema.encode(&values).unwrap_err().to_string();
            assert!(e.contains("UTF-16"), "{e}");
            t.refusal();
        } else {
            let res = same_key(&schema, &values, &unhex(&r[3]));
            t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
        }
    }
    t.finish();
}

#[test]
fn hbase_book_timestamp() {
    let mut t = Tally::new("HBase book (byte) (Long.hashCode(ts) % N)");
    for r in rows("hbase_book_timestamp.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let s =
            Schema::builder().field("ts", FieldType::U64).salt(Salt::hbase_book_timestamp("ts", n)).build().unwrap();
        let res = same_key(&s, &[Value::UInt(r[1].parse().unwrap())], &unhex(&r[2]));
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}

#[test]
fn phone_year() {
    let mut t = Tally::new("phone and year (phone + year) % N");
    for r in rows("phone_year.tsv") {
        let n: u32 = r[0].parse().unwrap();
        let s = Schema::builder()
            .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
            .literal("_")
            .field("calltime", FieldType::Decimal { digits: 14 })
            .salt(Salt::phone_year("phone", "calltime", n))
            .build()
            .unwrap();
        let res = same_key(&s, &[Value::str(r[1].as_str()), Value::UInt(r[2].parse().unwrap())], &unhex(&r[3]));
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}

#[test]
fn java_string_hash_of_any_bytes() {
    let mut t = Tally::new("Java new String(bytes, UTF_8).hashCode()");
    for r in rows("java_string.tsv") {
        let got = hash::java_string_hash_utf8(&unhex(&r[0]));
        t.check(got == r[1].parse::<i32>().unwrap(), || format!("{r:?}: {got}"));
    }
    t.finish();
}

#[test]
fn java_hash_forms() {
    let mut t = Tally::new("Java hash forms (JavaHash salt)");
    for r in rows("java_hash.tsv") {
        let hash_fn = match r[0].as_str() {
            "bytes" => JavaHash::Bytes,
            "string" => JavaHash::String,
            _ => JavaHash::Long,
        };
        let form = JavaBucketForm::from_name(&r[1]).unwrap();
        let n: u32 = r[2].parse().unwrap();
        let input = unhex(&r[3]);
        let want: i32 = r[4].parse().unwrap();
        let h = match hash_fn {
            JavaHash::Bytes => hash::java_bytes_hash(&input),
            JavaHash::String => hash::java_string_hash_utf8(&input),
            _ => hash::java_long_hash(std::str::from_utf8(&input).unwrap().parse().unwrap()),
        };
        t.check(form.apply(h, n) == want, || format!("{r:?}: form gives {}", form.apply(h, n)));
        // Through a salt written as a 4-byte int: the prefix is Java's int, negative or not.
        let s = rest_bytes_schema(Salt::java_hash(hash_fn, form, &["k"], n, SaltRendering::Bytes(4)));
        let mut key = want.to_be_bytes().to_vec();
        key.extend_from_slice(&input);
        let res = same_key(&s, &[Value::Bytes(input)], &key);
        t.check(res.is_ok(), || format!("{r:?}: {res:?}"));
    }
    t.finish();
}
