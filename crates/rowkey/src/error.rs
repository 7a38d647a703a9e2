//! Error and warning types.

use thiserror::Error;

/// HBase's hard limit on the length of a row key (`Short.MAX_VALUE`).
pub const HBASE_MAX_ROW_KEY_LEN: usize = 32_767;

/// Errors raised while encoding, decoding or planning keys.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A value does not fit the fixed width of its field.
    #[error("field `{field}`: value needs {needed} bytes but the field is {width} wide")]
    ValueTooWide {
        /// Field name.
        field: String,
        /// The field's fixed width.
        width: usize,
        /// What the value needed.
        needed: usize,
    },
    /// A value is outside the range its field accepts.
    #[error("field `{field}`: value out of range: {reason}")]
    OutOfRange {
        /// Field name.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The value's type does not match the field's type.
    #[error("field `{field}`: expected {expected}, got {got}")]
    TypeMismatch {
        /// Field name.
        field: String,
        /// What the field takes.
        expected: &'static str,
        /// What was given.
        got: &'static str,
    },
    /// The number of values does not match the number of value fields.
    #[error("expected {expected} values, got {got}")]
    WrongValueCount {
        /// Value fields in the schema (or allowed in a query).
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// The encoded key is over HBase's 32767-byte limit.
    #[error("row key is {len} bytes, over HBase's limit of {HBASE_MAX_ROW_KEY_LEN}")]
    KeyTooLong {
        /// Length of the key.
        len: usize,
    },
    /// The key ended before a field was complete.
    #[error("key truncated in field `{field}`")]
    Truncated {
        /// Field being decoded.
        field: String,
    },
    /// Bytes remain after the last field.
    #[error("{count} trailing bytes after the last field")]
    TrailingBytes {
        /// How many bytes are left.
        count: usize,
    },
    /// The stored bytes of a field are not a valid encoding.
    #[error("field `{field}`: invalid encoding: {reason}")]
    InvalidEncoding {
        /// Field name.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The salt prefix is malformed, out of range, or does not match the key.
    #[error("wrong salt: {reason}")]
    WrongSalt {
        /// What is wrong.
        reason: String,
    },
    /// A bucket number outside `[0, buckets)`.
    #[error("bucket {bucket} out of range (bucket count {buckets})")]
    BucketOutOfRange {
        /// The bucket asked for.
        bucket: u32,
        /// The schema's bucket count.
        buckets: u32,
    },
    /// The query cannot be planned.
    #[error("invalid query: {reason}")]
    InvalidQuery {
        /// What is wrong.
        reason: String,
    },
}

/// Errors raised while building a schema (builder or TOML).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The TOML text does not parse.
    #[error("TOML: {0}")]
    Toml(String),
    /// A field definition is invalid.
    #[error("field `{field}`: {reason}")]
    InvalidField {
        /// Field name.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// Two fields share a name.
    #[error("duplicate field name `{0}`")]
    DuplicateField(String),
    /// The salt refers to a field that does not exist.
    #[error("salt refers to unknown field `{0}`")]
    UnknownField(String),
    /// The salt definition is invalid.
    #[error("salt: {0}")]
    InvalidSalt(String),
    /// The schema has no value field.
    #[error("schema has no value field")]
    Empty,
}

/// A non-fatal finding about an encoded key (its length).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyWarning {
    /// The key is longer than the schema's soft limit.
    LongerThanSoftLimit {
        /// Length of the key.
        len: usize,
        /// The configured soft limit.
        limit: usize,
    },
}

impl std::fmt::Display for KeyWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyWarning::LongerThanSoftLimit { len, limit } => {
                write!(f, "row key is {len} bytes, over the soft limit of {limit}")
            }
        }
    }
}
