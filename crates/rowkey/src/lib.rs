//! Row-key design for Apache HBase: typed, order-preserving key encoding, salts, scan
//! planning for salted reads, split keys and hotspot analysis. No I/O.
//!
//! The byte format of every field and salt is specified in `KEYS.md` beside this crate,
//! with test vectors that the tests load and check (FoundationDB's tuple layer is the
//! model: sign-flipped integers, sign-flipped floats, escaped and terminated variable
//! length fields, complement for descending order).
//!
//! # Example
//!
//! ```
//! use basalt_rowkey::{FieldType, Query, Salt, Schema, Value, HashAlgo, Width, TimeUnit, TsFormat};
//!
//! // P1: [salt][hostname][event][ts newest first]
//! let schema = Schema::builder()
//!     .field("host", FieldType::Str(Width::Variable))
//!     .field("event", FieldType::U16)
//!     .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::ReverseLong })
//!     .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["host"], 8))
//!     .build()?;
//! let key = schema.encode(&[Value::str("host1"), Value::UInt(7), Value::Timestamp(1_700_000_000_000)])?;
//! let decoded = schema.decode(&key)?;
//! assert_eq!(decoded.values[0], Value::str("host1"));
//!
//! // All events of host1: the salt depends only on `host`, so one bucket is scanned.
//! let plan = schema.plan(&Query::new().fixed("host1"))?;
//! assert_eq!(plan.ranges.len(), 1);
//! assert!(plan.ranges[0].contains(&key));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Main API
//!
//! * [`Schema`] (built with [`Schema::builder`] or [`Schema::from_toml_str`]):
//!   [`Schema::encode`], [`Schema::encode_report`] (bucket + K4 warnings),
//!   [`Schema::decode`] (bucket + values, salt verified), [`Schema::logical_key`] (the
//!   stored key without its salt: what a merged salted scan sorts by),
//!   [`Schema::bucket_count`], [`Schema::salt_prefix`], [`Schema::plan`].
//! * [`Query`] -> [`ScanPlan`] of [`ScanRange`]s: forward `[start, stop)` (empty stop =
//!   unbounded), each inside one salt prefix; [`ScanRange::reversed`] gives the bounds
//!   for an HBase reversed scan (inclusive `startRow` = largest key, exclusive
//!   `stopRow`) and says exactly which edge rows need care.
//! * [`prefix_successor`] (FoundationDB's `strinc`), [`split`] (pre-split keys),
//!   [`hotspot`] (keys per region, skew, K8 cycle check), [`hash`] (the salt hashes).
//!
//! # Schema text format
//!
//! [`Schema::from_toml_str`] reads `[[fields]]` tables (`name`, `type` = `u8..u64`,
//! `i8..i64`, `f32`, `f64`, `bool`, `bytes`, `string`, `reversed_string`, `decimal`,
//! `timestamp`, `enum`, `literal`, `cyclic`; `order` = `asc|desc`; `width`, `pad`,
//! `pad_side`, `delimiter`, `digits`, `unit` = `s|ms`, `format` = `binary|reverse_long`,
//! `codes`, `cycle`, `value`), an optional `[salt]` table (`strategy`, `buckets`,
//! `algorithm`, `seed`, `inputs` = `["field:part", ...]` with parts `text`, `encoded`,
//! `firstN`, `lastN`, `year`, `month`, `day`; `chars`, `width`, `rendering` =
//! `byte|bytes|decimal|hex`, `separator`) and `soft_limit`.

mod calendar;
mod codec;
mod error;
mod field;
pub mod hash;
pub mod hotspot;
pub mod patterns;
mod plan;
mod presets;
mod salt;
mod schema;
pub mod split;
mod toml_schema;
mod value;

pub use calendar::CalendarUnit;
pub use error::{KeyError, KeyWarning, SchemaError, HBASE_MAX_ROW_KEY_LEN};
pub use field::{Cycle, EnumCodes, Field, FieldType, Order, Pad, TimeUnit, TsFormat, Width};
pub use hash::{HashAlgo, JavaBucketForm, JavaHash};
pub use plan::{prefix_successor, Query, ReverseScanBounds, ScanPlan, ScanRange, MAX_INTERVAL_RANGES};
pub use salt::{Part, Salt, SaltInput, SaltRendering, SaltStrategy};
pub use schema::{DecodedKey, EncodedKey, Schema, SchemaBuilder, DEFAULT_SOFT_LIMIT};
pub use value::Value;
