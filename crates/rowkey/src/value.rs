//! Field values.

use std::cmp::Ordering;

/// A value of one key field.
///
/// Integers of every width use [`Value::UInt`] / [`Value::Int`]; the field decides the
/// width. Decoding returns the canonical variant of the field's type (for example
/// `UInt` for `u16` fields, `Timestamp` for timestamp fields, `Str` for enum fields).
#[derive(Debug, Clone)]
pub enum Value {
    /// Unsigned integer (u8..u64 fields, decimal digit strings).
    UInt(u64),
    /// Signed integer (i8..i64 fields).
    Int(i64),
    /// 32-bit float.
    F32(f32),
    /// 64-bit float.
    F64(f64),
    /// Boolean.
    Bool(bool),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// UTF-8 string (string, reversed string and enum fields).
    Str(String),
    /// Timestamp in the field's unit (seconds or milliseconds since the Unix epoch).
    Timestamp(i64),
}

impl Value {
    /// Short name of the variant, used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::UInt(_) => "unsigned integer",
            Value::Int(_) => "signed integer",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Bool(_) => "bool",
            Value::Bytes(_) => "bytes",
            Value::Str(_) => "string",
            Value::Timestamp(_) => "timestamp",
        }
    }

    /// Convenience constructor for a string value.
    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    /// Convenience constructor for a bytes value.
    pub fn bytes(b: impl Into<Vec<u8>>) -> Value {
        Value::Bytes(b.into())
    }

    /// Total order between values of the same variant (floats by `total_cmp`);
    /// `None` for values of different variants.
    pub fn partial_cmp_same(&self, other: &Value) -> Option<Ordering> {
        Some(match (self, other) {
            (Value::UInt(a), Value::UInt(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::F32(a), Value::F32(b)) => a.total_cmp(b),
            (Value::F64(a), Value::F64(b)) => a.total_cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::Timestamp(a), Value::Timestamp(b)) => a.cmp(b),
            _ => return None,
        })
    }
}

/// Text form: numbers in decimal, strings as is, bytes as `0x` + lower-case hex.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::UInt(n) => write!(f, "{n}"),
            Value::Int(n) | Value::Timestamp(n) => write!(f, "{n}"),
            Value::F32(x) => write!(f, "{x}"),
            Value::F64(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => f.write_str(s),
            Value::Bytes(b) => {
                f.write_str("0x")?;
                b.iter().try_for_each(|x| write!(f, "{x:02x}"))
            }
        }
    }
}

/// Equality is bitwise for floats (so `NaN == NaN` and `-0.0 != 0.0`), matching the
/// encoding: two values are equal exactly when their encodings are.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            _ => self.partial_cmp_same(other) == Some(Ordering::Equal),
        }
    }
}

impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::UInt(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::UInt(u64::from(v))
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::Int(i64::from(v))
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::F64(v)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::F32(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Str(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Str(v)
    }
}
impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Bytes(v.to_vec())
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Bytes(v)
    }
}
