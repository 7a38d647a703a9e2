//! Field definitions: types, widths, padding, order.

use std::collections::BTreeMap;

use crate::error::{SchemaError, HBASE_MAX_ROW_KEY_LEN};

/// Sort order of a field inside the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Ascending: byte order equals value order.
    #[default]
    Asc,
    /// Descending: every byte of the field's ascending encoding is complemented.
    Desc,
}

/// Where pad bytes go in a fixed-width field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pad {
    /// Pad on the left (`lpad`, e.g. `userID` zero-padded to 6 digits: `000042`).
    Left(u8),
    /// Pad on the right (`rpad(col, 'x', 20)`).
    Right(u8),
}

/// Width of a bytes or string field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Exactly `len` bytes, padded. Decoding strips pad bytes on the padded side, so a
    /// value that itself starts (left pad) or ends (right pad) with the pad byte does not
    /// round-trip. Byte order equals value order only for right padding with a byte
    /// below every byte of the values (e.g. `0x00`; with `' '` padding `"a\t"` sorts
    /// before `"a"`), and for left padding of equal-alphabet digit strings.
    Fixed {
        /// Width in bytes.
        len: usize,
        /// Pad side and byte.
        pad: Pad,
    },
    /// Variable length, order-preserving and prefix-free: `0x00` is escaped as
    /// `0x00 0xFF` and the value ends with the terminator `0x00 0x01` (see KEYS.md).
    Variable,
    /// Variable length ended by a delimiter byte the value must not contain (the
    /// `[col1][_][col2]`). Order is preserved only if the delimiter sorts below every
    /// byte used in values (with `_`, `"a"` + `_` sorts after `"aB"`). Phoenix's
    /// VARCHAR before another key column is `Delimited(0)`.
    Delimited(u8),
    /// Variable length running to the end of the key, without terminator: Phoenix's
    /// VARCHAR/VARBINARY as the last key column. Descending, the complemented bytes are
    /// followed by `0xFF`, as Phoenix writes them (so a longer value sorts first). Only
    /// allowed for the last field.
    Rest,
}

/// Unit of a timestamp field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds since the Unix epoch.
    Seconds,
    /// Milliseconds since the Unix epoch.
    Millis,
}

impl TimeUnit {
    /// Units per second.
    pub fn per_second(self) -> i64 {
        match self {
            TimeUnit::Seconds => 1,
            TimeUnit::Millis => 1000,
        }
    }
}

/// Byte layout of a timestamp field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TsFormat {
    /// 8-byte big-endian i64 with the sign bit flipped (like the signed integers).
    #[default]
    Binary,
    /// Newest first: 8-byte big-endian `Long.MAX_VALUE - ts` (byte-compatible with Java's
    /// `Bytes.toBytes(Long.MAX_VALUE - ts)`); newest first. Requires `ts >= 0`.
    ReverseLong,
}

/// Cycle of a cyclic ("loop") time field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cycle {
    /// `MM-DD` (5 ASCII bytes): the key repeats every year (at least 365 days).
    Yearly,
    /// `DD` (2 ASCII bytes): the key repeats every month (at least 28 days).
    Monthly,
}

impl Cycle {
    /// Shortest time after which a key value comes back, in seconds.
    pub fn min_period_secs(self) -> i64 {
        match self {
            Cycle::Yearly => 365 * 86_400,
            Cycle::Monthly => 28 * 86_400,
        }
    }

    /// Width of the rendered field.
    pub fn width(self) -> usize {
        match self {
            Cycle::Yearly => 5,
            Cycle::Monthly => 2,
        }
    }
}

/// Enumerated codes: each name maps to a short code; all codes have the same length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumCodes {
    by_name: BTreeMap<String, Vec<u8>>,
    by_code: BTreeMap<Vec<u8>, String>,
    width: usize,
}

impl EnumCodes {
    /// Builds the table; codes must be non-empty, unique and of equal length.
    pub fn new<N, C>(pairs: impl IntoIterator<Item = (N, C)>) -> Result<EnumCodes, SchemaError>
    where
        N: Into<String>,
        C: Into<Vec<u8>>,
    {
        let mut by_name = BTreeMap::new();
        let mut by_code = BTreeMap::new();
        let mut width = None;
        for (name, code) in pairs {
            let (name, code): (String, Vec<u8>) = (name.into(), code.into());
            let bad = |reason: &str| SchemaError::InvalidField { field: name.clone(), reason: reason.to_owned() };
            if code.is_empty() {
                return Err(bad("empty enum code"));
            }
            if *width.get_or_insert(code.len()) != code.len() {
                return Err(bad("enum codes must all have the same length"));
            }
            if by_code.insert(code.clone(), name.clone()).is_some() {
                return Err(bad("duplicate enum code"));
            }
            if by_name.insert(name.clone(), code).is_some() {
                return Err(bad("duplicate enum name"));
            }
        }
        let width = width
            .ok_or_else(|| SchemaError::InvalidField { field: String::new(), reason: "enum has no codes".into() })?;
        Ok(EnumCodes { by_name, by_code, width })
    }

    /// Code of a name.
    pub fn code(&self, name: &str) -> Option<&[u8]> {
        self.by_name.get(name).map(Vec::as_slice)
    }

    /// Name of a code.
    pub fn name(&self, code: &[u8]) -> Option<&str> {
        self.by_code.get(code).map(String::as_str)
    }

    /// Length of every code.
    pub fn width(&self) -> usize {
        self.width
    }

    /// `(name, code)` pairs in name order.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.by_name.iter().map(|(n, c)| (n.as_str(), c.as_slice()))
    }
}

/// Type of a key field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldType {
    /// 1-byte unsigned integer.
    U8,
    /// 2-byte big-endian unsigned integer.
    U16,
    /// 4-byte big-endian unsigned integer.
    U32,
    /// 8-byte big-endian unsigned integer.
    U64,
    /// 1-byte signed integer, sign bit flipped.
    I8,
    /// 2-byte signed integer, big-endian, sign bit flipped.
    I16,
    /// 4-byte signed integer, big-endian, sign bit flipped.
    I32,
    /// 8-byte signed integer, big-endian, sign bit flipped.
    I64,
    /// IEEE f32 with the order-preserving transform.
    F32,
    /// IEEE f64 with the order-preserving transform.
    F64,
    /// Apache Phoenix `FLOAT`: IEEE bits, negative all inverted, positive sign bit
    /// flipped, then plus one (wrapping), exactly as Phoenix 5.1 writes it; value
    /// [`crate::Value::F32`]. Every NaN is written as Java's canonical NaN (so decodes to
    /// it); `-0.0` sorts just below `0.0`.
    PhoenixFloat,
    /// Apache Phoenix `DOUBLE`: like [`FieldType::PhoenixFloat`] on 8 bytes; value
    /// [`crate::Value::F64`].
    PhoenixDouble,
    /// `0x00` / `0x01`.
    Bool,
    /// Raw bytes.
    Bytes(Width),
    /// UTF-8 string.
    Str(Width),
    /// UTF-8 string stored with its characters reversed (e.g. phone numbers).
    ReversedStr(Width),
    /// Unsigned integer as zero-padded ASCII decimal digits of a fixed count
    /// (e.g. a `userID(6)`), value [`crate::Value::UInt`].
    Decimal {
        /// Number of digits (1..=20).
        digits: u8,
    },
    /// Timestamp, value [`crate::Value::Timestamp`].
    Timestamp {
        /// Unit of the value.
        unit: TimeUnit,
        /// Byte layout.
        format: TsFormat,
    },
    /// Enumerated codes, value [`crate::Value::Str`] holding the name.
    Enum(EnumCodes),
    /// A constant separator (`_`, `|`, `-`): takes no value.
    Literal(Vec<u8>),
    /// A timestamp folded into a cycle. Encodes a [`crate::Value::Timestamp`] (or a
    /// `Str` already in cycle form); decodes to the cycle form as `Str` (lossy).
    Cyclic {
        /// Unit of timestamp values.
        unit: TimeUnit,
        /// The cycle.
        cycle: Cycle,
    },
}

impl FieldType {
    /// Fixed encoded width, or `None` for variable-length fields.
    pub fn fixed_width(&self) -> Option<usize> {
        Some(match self {
            FieldType::U8 | FieldType::I8 | FieldType::Bool => 1,
            FieldType::U16 | FieldType::I16 => 2,
            FieldType::U32 | FieldType::I32 | FieldType::F32 | FieldType::PhoenixFloat => 4,
            FieldType::U64 | FieldType::I64 | FieldType::F64 | FieldType::PhoenixDouble => 8,
            FieldType::Bytes(w) | FieldType::Str(w) | FieldType::ReversedStr(w) => match w {
                Width::Fixed { len, .. } => *len,
                Width::Variable | Width::Delimited(_) | Width::Rest => return None,
            },
            FieldType::Decimal { digits } => usize::from(*digits),
            FieldType::Timestamp { .. } => 8,
            FieldType::Enum(codes) => codes.width(),
            FieldType::Literal(b) => b.len(),
            FieldType::Cyclic { cycle, .. } => cycle.width(),
        })
    }

    /// True for literal (separator) fields, which take no value.
    pub fn is_literal(&self) -> bool {
        matches!(self, FieldType::Literal(_))
    }

    /// The width of a bytes or string field.
    pub(crate) fn width(&self) -> Option<Width> {
        match self {
            FieldType::Bytes(w) | FieldType::Str(w) | FieldType::ReversedStr(w) => Some(*w),
            _ => None,
        }
    }
}

/// One field of a key schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub(crate) name: String,
    pub(crate) ty: FieldType,
    pub(crate) order: Order,
}

impl Field {
    /// A new ascending field.
    pub fn new(name: impl Into<String>, ty: FieldType) -> Field {
        Field { name: name.into(), ty, order: Order::Asc }
    }

    /// The same field with the given order.
    pub fn with_order(mut self, order: Order) -> Field {
        self.order = order;
        self
    }

    /// Name of the field.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Type of the field.
    pub fn ty(&self) -> &FieldType {
        &self.ty
    }

    /// Order of the field.
    pub fn order(&self) -> Order {
        self.order
    }

    /// True if byte order is the reverse of value order (descending fields and
    /// `reverse_long` timestamps).
    pub fn reverses_order(&self) -> bool {
        let reverse_long = matches!(self.ty, FieldType::Timestamp { format: TsFormat::ReverseLong, .. });
        (self.order == Order::Desc) != reverse_long
    }

    /// Parses the text form of a value of this field (for CLIs): integers and
    /// timestamps in decimal, floats, `true`/`false`, strings as is, bytes as `0x` + hex
    /// or else the UTF-8 of the text. Literal fields take no value (error).
    pub fn parse_value(&self, text: &str) -> Result<crate::Value, crate::KeyError> {
        use crate::Value;
        let bad = |expected: &'static str| crate::KeyError::TypeMismatch {
            field: self.name.clone(),
            expected,
            got: "unparsable text",
        };
        Ok(match &self.ty {
            FieldType::U8 | FieldType::U16 | FieldType::U32 | FieldType::U64 | FieldType::Decimal { .. } => {
                Value::UInt(text.parse().map_err(|_| bad("unsigned integer"))?)
            }
            FieldType::I8 | FieldType::I16 | FieldType::I32 | FieldType::I64 => {
                Value::Int(text.parse().map_err(|_| bad("signed integer"))?)
            }
            FieldType::F32 | FieldType::PhoenixFloat => Value::F32(text.parse().map_err(|_| bad("f32"))?),
            FieldType::F64 | FieldType::PhoenixDouble => Value::F64(text.parse().map_err(|_| bad("f64"))?),
            FieldType::Bool => Value::Bool(text.parse().map_err(|_| bad("bool"))?),
            FieldType::Timestamp { .. } | FieldType::Cyclic { .. } => {
                Value::Timestamp(text.parse().map_err(|_| bad("timestamp"))?)
            }
            FieldType::Bytes(_) => match text.strip_prefix("0x") {
                Some(h) if h.len() % 2 == 0 && h.bytes().all(|c| c.is_ascii_hexdigit()) => Value::Bytes(
                    (0..h.len() / 2).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap_or(0)).collect(),
                ),
                _ => Value::Bytes(text.as_bytes().to_vec()),
            },
            FieldType::Str(_) | FieldType::ReversedStr(_) | FieldType::Enum(_) => Value::Str(text.to_owned()),
            FieldType::Literal(_) => return Err(bad("no value (literal)")),
        })
    }

    pub(crate) fn validate(&self) -> Result<(), SchemaError> {
        let bad = |reason: &str| Err(SchemaError::InvalidField { field: self.name.clone(), reason: reason.to_owned() });
        match &self.ty {
            FieldType::Decimal { digits } if *digits == 0 || *digits > 20 => bad("decimal digits must be 1..=20"),
            FieldType::Bytes(Width::Fixed { len: 0, .. })
            | FieldType::Str(Width::Fixed { len: 0, .. })
            | FieldType::ReversedStr(Width::Fixed { len: 0, .. }) => bad("fixed width must be > 0"),
            // A fixed width is padded out on every encode: one over HBase's key limit could
            // never be stored, and an absurd one from a schema file would be an allocation.
            FieldType::Bytes(Width::Fixed { len, .. })
            | FieldType::Str(Width::Fixed { len, .. })
            | FieldType::ReversedStr(Width::Fixed { len, .. })
                if *len > HBASE_MAX_ROW_KEY_LEN =>
            {
                bad(&format!("fixed width {len} is over HBase's row key limit of {HBASE_MAX_ROW_KEY_LEN} bytes"))
            }
            FieldType::Literal(b) if b.is_empty() => bad("empty literal"),
            FieldType::Literal(b) if b.len() > HBASE_MAX_ROW_KEY_LEN => {
                bad(&format!("literal of {} bytes is over HBase's row key limit", b.len()))
            }
            FieldType::Literal(_) if self.order == Order::Desc => bad("a literal cannot be descending"),
            FieldType::Timestamp { format: TsFormat::ReverseLong, .. } if self.order == Order::Desc => {
                bad("reverse_long is already newest-first; use ascending order")
            }
            _ => Ok(()),
        }
    }
}
