//! Decoding arbitrary bytes must never panic, for schemas covering every field type.
#![no_main]

use basalt_rowkey::{Cycle, EnumCodes, FieldType, HashAlgo, Pad, Query, Salt, Schema, TimeUnit, TsFormat, Width};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn schemas() -> &'static Vec<Schema> {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        let mut out = Vec::new();
        let ms = TimeUnit::Millis;
        if let Ok(s) = Schema::builder()
            .field("a", FieldType::Str(Width::Variable))
            .field_desc("b", FieldType::Bytes(Width::Variable))
            .field("c", FieldType::F64)
            .field_desc("d", FieldType::F32)
            .field("e", FieldType::I16)
            .field("f", FieldType::Bool)
            .field("t", FieldType::Timestamp { unit: ms, format: TsFormat::ReverseLong })
            .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["a"], 16))
            .build()
        {
            out.push(s);
        }
        if let Ok(s) = Schema::builder()
            .field("p", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Left(b'0') }))
            .literal("_")
            .field("d", FieldType::Decimal { digits: 14 })
            .field_desc("r", FieldType::ReversedStr(Width::Delimited(b'|')))
            .salt(Salt::call_record("p", "d", 6))
            .build()
        {
            out.push(s);
        }
        let codes = EnumCodes::new([("taobao", "tb"), ("jd", "jd")]);
        if let Ok(codes) = codes {
            if let Ok(s) = Schema::builder()
                .field("e", FieldType::Enum(codes))
                .field("c", FieldType::Cyclic { unit: ms, cycle: Cycle::Yearly })
                .field("u", FieldType::U64)
                .field("id", FieldType::Str(Width::Fixed { len: 8, pad: Pad::Right(b' ') }))
                .salt(Salt::socorro("id"))
                .build()
            {
                out.push(s);
            }
        }
        if let Ok(s) = Schema::builder().field("k", FieldType::Bytes(Width::Variable)).salt(Salt::phoenix(8)).build() {
            out.push(s);
        }
        // Phoenix-style columns, HBaseWD's hash prefix (with its negative extra bucket),
        // OpenTSDB's 8-byte salt, the HBase book's two-byte signed prefix.
        if let Ok(s) = Schema::builder()
            .field_desc("v", FieldType::Str(Width::Delimited(0)))
            .field("x", FieldType::PhoenixDouble)
            .field_desc("y", FieldType::PhoenixFloat)
            .field_desc("r", FieldType::Bytes(Width::Rest))
            .salt(Salt::hbasewd_hash_prefix(10))
            .build()
        {
            out.push(s);
        }
        if let Ok(s) = Schema::builder()
            .field("m", FieldType::Bytes(Width::Fixed { len: 3, pad: Pad::Right(0) }))
            .field("t", FieldType::U32)
            .field("tags", FieldType::Bytes(Width::Rest))
            .salt(Salt::opentsdb(8, 20, &["m", "tags"]))
            .build()
        {
            out.push(s);
        }
        if let Ok(s) = Schema::builder().field("ts", FieldType::U64).salt(Salt::hbase_book_timestamp("ts", 16)).build() {
            out.push(s);
        }
        out
    })
}

fuzz_target!(|data: &[u8]| {
    for s in schemas() {
        if let Ok(d) = s.decode(data) {
            // Whatever decodes must re-encode, and plan a query on its first value.
            let _ = s.encode(&d.values);
            if let Some(v) = d.values.first() {
                let _ = s.plan(&Query::new().fixed(v.clone()));
            }
        }
        let _ = s.logical_key(data);
    }
});
