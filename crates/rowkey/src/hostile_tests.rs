//! Hostile inputs: absurd schema files and arbitrary stored keys get typed errors, never
//! a panic or an allocation sized by the input.

use std::ops::Bound;

use proptest::prelude::*;

use crate::split::{bucket_split_keys, bucket_sub_split_keys};
use crate::{Query, Schema, SchemaError, Value};

fn schema(salt: &str, fields: &str) -> Result<Schema, SchemaError> {
    Schema::from_toml_str(&format!("{salt}\n{fields}"))
}

const ONE_STRING: &str = "[[fields]]\nname = \"a\"\ntype = \"string\"\n";

#[test]
fn absurd_fixed_widths_are_refused() {
    for w in ["32768", "4294967296", "9223372036854775807", "18446744073709551615"] {
        for ty in ["string", "bytes", "reversed_string"] {
            let text = format!(
                "[[fields]]\nname = \"a\"\ntype = \"{ty}\"\nwidth = {w}\n[[fields]]\nname = \"b\"\ntype = \"{ty}\"\nwidth = {w}\n"
            );
            let r = Schema::from_toml_str(&text);
            // TOML integers are i64: the largest usize is refused by the parser itself.
            assert!(
                matches!(r, Err(SchemaError::InvalidField { .. }) | Err(SchemaError::Toml(_))),
                "{ty} width {w}: {r:?}"
            );
        }
    }
    // The largest width HBase can store is still accepted, and a value is padded to it.
    let s = Schema::from_toml_str("[[fields]]\nname = \"a\"\ntype = \"bytes\"\nwidth = 32767\n").unwrap();
    assert_eq!(s.max_key_len(), Some(32767));
    assert_eq!(s.encode(&[Value::Bytes(vec![1])]).unwrap().len(), 32767);
}

#[test]
fn absurd_bucket_counts_are_refused() {
    let cases = [
        "[salt]\nstrategy = \"hash\"\nalgorithm = \"md5\"\ninputs = [\"a\"]\nbuckets = 4294967295\nrendering = \"bytes\"\nwidth = 4",
        "[salt]\nstrategy = \"modulo\"\ninputs = [\"a\"]\nbuckets = 4294967295\nrendering = \"decimal\"",
        "[salt]\nstrategy = \"logical_key_hash\"\nalgorithm = \"crc32\"\nbuckets = 16777217\nrendering = \"hex\"",
        "[salt]\nstrategy = \"opentsdb\"\ninputs = [\"a\"]\nbuckets = 4294967295\nwidth = 8",
        "[salt]\nstrategy = \"md5_hex\"\ninputs = [\"a\"]\nchars = 7",
        "[salt]\nstrategy = \"java_hash\"\nalgorithm = \"java_string\"\nform = \"floor_mod\"\ninputs = [\"a\"]\nbuckets = 2147483647\nrendering = \"bytes\"\nwidth = 4",
    ];
    for salt in cases {
        let r = schema(salt, ONE_STRING);
        assert!(matches!(r, Err(SchemaError::InvalidSalt(_))), "{salt}: {r:?}");
    }
}

#[test]
fn the_largest_bucket_count_still_plans_and_splits() {
    let s = schema(
        "[salt]\nstrategy = \"hash\"\nalgorithm = \"md5\"\ninputs = [\"a\"]\nbuckets = 1048576\nrendering = \"bytes\"\nwidth = 3",
        ONE_STRING,
    )
    .unwrap();
    assert_eq!(s.bucket_count(), Some(1 << 20));
    assert_eq!(bucket_split_keys(&s).len(), (1 << 20) - 1);
    let plan = s.plan(&Query::new()).unwrap();
    assert_eq!(plan.ranges.len(), 1 << 20);
}

#[test]
fn sub_splits_of_a_huge_k_do_not_panic() {
    let s = schema("[salt]\nstrategy = \"phoenix\"\nbuckets = 2", ONE_STRING).unwrap();
    // At most 255 distinct inner bytes exist, whatever k is.
    assert!(bucket_sub_split_keys(&s, 1000).len() <= 2 * 256);
    assert!(bucket_sub_split_keys(&s, 0).len() == 1);
}

#[test]
fn absurd_salt_renderings_do_not_panic() {
    for r in ["decimal\"\nwidth = 255", "hex\"\nwidth = 255", "bytes\"\nwidth = 255", "bytes\"\nwidth = 0"] {
        let salt = format!("[salt]\nstrategy = \"modulo\"\ninputs = [\"a\"]\nbuckets = 7\nrendering = \"{r}");
        if let Ok(s) = schema(&salt, "[[fields]]\nname = \"a\"\ntype = \"u32\"\n") {
            let k = s.encode(&[Value::UInt(9)]).unwrap();
            assert_eq!(s.decode(&k).unwrap().values, [Value::UInt(9)]);
            let _ = s.plan(&Query::new().range(Bound::Included(Value::UInt(0)), Bound::Unbounded));
        }
    }
}

fn hostile_schemas() -> Vec<Schema> {
    let texts = [
        "[salt]\nstrategy = \"call_record\"\nbuckets = 6\ninputs = [\"p\", \"t\"]\n\
         [[fields]]\nname = \"p\"\ntype = \"string\"\nwidth = 11\n\
         [[fields]]\ntype = \"literal\"\nvalue = \"_\"\n\
         [[fields]]\nname = \"t\"\ntype = \"decimal\"\ndigits = 20\n",
        "[salt]\nstrategy = \"opentsdb\"\nbuckets = 300\nwidth = 8\ninputs = [\"m\"]\n\
         [[fields]]\nname = \"m\"\ntype = \"bytes\"\ndelimiter = 0\norder = \"desc\"\n\
         [[fields]]\nname = \"r\"\ntype = \"string\"\nrest = true\norder = \"desc\"\n",
        "[salt]\nstrategy = \"java_hash\"\nalgorithm = \"java_string\"\nform = \"abs_then_rem\"\nbuckets = 10\ninputs = []\n\
         [[fields]]\nname = \"a\"\ntype = \"reversed_string\"\n\
         [[fields]]\nname = \"i\"\ntype = \"i64\"\norder = \"desc\"\n",
        "[salt]\nstrategy = \"md5_hex\"\nchars = 5\ninputs = [\"t\"]\nseparator = \"|\"\n\
         [[fields]]\nname = \"t\"\ntype = \"timestamp\"\nformat = \"reverse_long\"\n\
         [[fields]]\nname = \"c\"\ntype = \"cyclic\"\ncycle = \"monthly\"\n",
    ];
    texts.iter().map(|t| Schema::from_toml_str(t).unwrap()).collect()
}

proptest! {
    #[test]
    fn decoding_arbitrary_stored_keys_never_panics(key in proptest::collection::vec(any::<u8>(), 0..64)) {
        for s in hostile_schemas() {
            let _ = s.decode(&key);
            let _ = s.split_salt(&key);
            let _ = s.logical_key(&key);
            let _ = s.decode_logical(&key);
        }
    }

    #[test]
    fn arbitrary_field_widths_and_bucket_counts_never_panic(
        width in any::<usize>(),
        buckets in any::<u32>(),
        rendering_width in any::<u8>(),
        digits in any::<u8>(),
    ) {
        let fields = format!(
            "[[fields]]\nname = \"a\"\ntype = \"bytes\"\nwidth = {}\n[[fields]]\nname = \"d\"\ntype = \"decimal\"\ndigits = {digits}\n",
            width.min(i64::MAX as usize)
        );
        for rendering in ["bytes", "decimal", "hex"] {
            let salt = format!(
                "[salt]\nstrategy = \"hash\"\nalgorithm = \"crc32\"\ninputs = [\"a\"]\nbuckets = {buckets}\nrendering = \"{rendering}\"\nwidth = {rendering_width}"
            );
            if let Ok(s) = schema(&salt, &fields) {
                let _ = s.max_key_len();
                let _ = s.encode(&[Value::Bytes(vec![7]), Value::UInt(1)]);
                let _ = s.decode(&[0u8; 40]);
                let _ = s.try_salt_prefix(buckets.wrapping_sub(1));
            }
        }
    }
}
