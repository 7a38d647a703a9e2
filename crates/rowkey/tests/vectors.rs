//! Loads the test vectors of KEYS.md and checks them against the code.
#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::HashMap;

use basalt_rowkey::{hash, split, Schema, Value};

fn spec() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/KEYS.md")).unwrap()
}

/// Rows (cells without backticks) of every table whose header's first cell is `first`.
fn table(text: &str, first: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if !line.starts_with('|') {
            inside = false;
            continue;
        }
        let cells: Vec<String> =
            line.trim_matches('|').split('|').map(|c| c.trim().trim_matches('`').to_owned()).collect();
        if cells.first().map(String::as_str) == Some(first) {
            inside = true;
            continue;
        }
        if inside && !cells.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            rows.push(cells);
        }
    }
    assert!(!rows.is_empty(), "no table `{first}` in KEYS.md");
    rows
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

fn value(s: &str) -> Value {
    let (kind, v) = s.split_once(':').unwrap();
    match kind {
        "u" => Value::UInt(v.parse().unwrap()),
        "i" => Value::Int(v.parse().unwrap()),
        "f64" => Value::F64(v.parse().unwrap()),
        "f32" => Value::F32(v.parse().unwrap()),
        "b" => Value::Bool(v.parse().unwrap()),
        "s" => Value::Str(v.to_owned()),
        "x" => Value::Bytes(unhex(v)),
        "t" => Value::Timestamp(v.parse().unwrap()),
        other => panic!("unknown value kind {other}"),
    }
}

fn raw(s: &str) -> Vec<u8> {
    match value(s) {
        Value::Str(s) => s.into_bytes(),
        Value::Bytes(b) => b,
        other => panic!("not bytes: {other:?}"),
    }
}

fn schemas(text: &str) -> HashMap<String, Schema> {
    let mut out = HashMap::new();
    let mut cur: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("```toml schema=") {
            cur = Some((name.trim().to_owned(), String::new()));
        } else if line.starts_with("```") {
            if let Some((name, body)) = cur.take() {
                let s = Schema::from_toml_str(&body).unwrap_or_else(|e| panic!("schema {name}: {e}"));
                out.insert(name, s);
            }
        } else if let Some((_, body)) = cur.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

#[test]
fn field_vectors() {
    let rows = table(&spec(), "field");
    assert!(rows.len() >= 40);
    for r in rows {
        let toml = format!("fields = [{{ name = \"f\", {} }}]", r[0]);
        let schema = Schema::from_toml_str(&toml).unwrap_or_else(|e| panic!("{}: {e}", r[0]));
        let v = value(&r[1]);
        let key = schema.encode(std::slice::from_ref(&v)).unwrap();
        assert_eq!(key.as_ref(), unhex(&r[2]).as_slice(), "{} {}", r[0], r[1]);
        let back = schema.decode(&key).unwrap();
        // Decoding then encoding gives the same bytes; values round-trip except for the
        // lossy cyclic fields.
        assert_eq!(schema.encode(&back.values).unwrap(), key, "{}", r[0]);
        if !r[0].contains("cyclic") {
            assert_eq!(back.values, vec![v], "{}", r[0]);
        }
    }
}

#[test]
fn hash_vectors() {
    for r in table(&spec(), "function") {
        let input = raw(&r[1]);
        let out = &r[2];
        let name = r[0].as_str();
        let hex_u32 = || u32::from_str_radix(out.trim_start_matches("0x"), 16).unwrap();
        match name {
            "java_string" => {
                let s = String::from_utf8(input).unwrap();
                assert_eq!(hash::java_string_hash(&s), out.parse::<i32>().unwrap(), "{s}");
            }
            "java_string_utf8" => assert_eq!(hash::java_string_hash_utf8(&input), out.parse::<i32>().unwrap()),
            "java_long" => {
                let v: i64 = std::str::from_utf8(&input).unwrap().parse().unwrap();
                assert_eq!(hash::java_long_hash(v), out.parse::<i32>().unwrap());
            }
            "java_bytes" => assert_eq!(hash::java_bytes_hash(&input), out.parse::<i32>().unwrap()),
            "crc32" => assert_eq!(hash::crc32(&input), hex_u32()),
            "md5" => assert_eq!(&hash::md5_hex(&input), out),
            _ => {
                let seed: u32 = name.strip_prefix("murmur3/").unwrap().parse().unwrap();
                assert_eq!(hash::murmur3_x86_32(&input, seed), hex_u32(), "{r:?}");
            }
        }
    }
}

#[test]
fn key_vectors() {
    let text = spec();
    let schemas = schemas(&text);
    let rows = table(&text, "schema");
    assert!(rows.len() >= 12);
    for r in rows {
        let schema = &schemas[&r[0]];
        let values: Vec<Value> = r[1].split(" ; ").map(value).collect();
        let bucket: u32 = r[2].parse().unwrap();
        let want = unhex(&r[3]);
        let enc = schema.encode_report(&values).unwrap();
        assert_eq!(enc.bucket, Some(bucket), "{r:?}");
        assert_eq!(enc.key.as_ref(), want.as_slice(), "{r:?}");
        let d = schema.decode(&want).unwrap();
        assert_eq!(d.bucket, Some(bucket));
        if d.values != values {
            // Fixed-width bytes decode without their pad bytes (OpenTSDB's metric 0).
            assert_eq!(schema.encode(&d.values).unwrap(), want, "{r:?}");
        }
        assert_eq!(schema.salt_prefix(bucket).as_ref(), &want[..schema.salt_len()]);
        // A wrong salt is rejected.
        let other = (bucket + 1) % schema.bucket_count().unwrap();
        let mut bad = schema.salt_prefix(other).to_vec();
        bad.extend_from_slice(schema.logical_key(&want).unwrap());
        assert!(schema.decode(&bad).is_err(), "{r:?}");
    }
}

#[test]
fn round_robin_vector() {
    for r in table(&spec(), "round robin") {
        let n: u8 = r[1].parse().unwrap();
        let schema = Schema::builder()
            .field("k", basalt_rowkey::FieldType::U8)
            .salt(basalt_rowkey::Salt::hbasewd_one_byte_prefix(n))
            .build()
            .unwrap();
        let got: Vec<u8> = (0..260).map(|_| schema.encode(&[Value::UInt(1)]).unwrap()[0]).collect();
        assert_eq!(got.len() * 2, r[2].len());
        assert_eq!(got, unhex(&r[2]));
    }
}

#[test]
fn split_vectors() {
    let text = spec();
    let schemas = schemas(&text);
    for r in table(&text, "splits") {
        let n: u32 = r[1].parse().unwrap();
        let want: Vec<Vec<u8>> = r[2].split(' ').map(raw).collect();
        let got = match r[0].as_str() {
            "hex_string" => split::hex_string_split(n),
            "decimal_string" => split::decimal_string_split(n),
            "uniform" => split::uniform_split(n),
            "call_record" => split::call_record_split_keys(n),
            other => {
                let s = &schemas[other.strip_prefix("buckets:").unwrap()];
                assert_eq!(s.bucket_count(), Some(n));
                split::bucket_split_keys(s)
            }
        };
        let got: Vec<Vec<u8>> = got.iter().map(|b| b.to_vec()).collect();
        assert_eq!(got, want, "{r:?}");
    }
}
