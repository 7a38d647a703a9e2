//! Salts (S1-S6): bucket strategies, renderings and byte-exact compatibility presets.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering as AtomicOrdering};
use std::sync::Arc;

use crate::calendar::{self, CalendarUnit};
use crate::codec;
use crate::error::{KeyError, SchemaError};
use crate::field::{Field, FieldType};
use crate::hash::{self, HashAlgo};
use crate::value::Value;

/// Which part of a field's value feeds a salt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The field's encoded key bytes (as stored, without the salt).
    Encoded,
    /// The value's text form (strings as given, decimal fields zero-padded, numbers in
    /// decimal, bytes raw).
    Text,
    /// The first `n` characters of the text form (`date.substring(0, 6)` = `yyyyMM`).
    First(usize),
    /// The last `n` characters of the text form (`tel.substring(len - 4)`); the whole
    /// text if it is shorter.
    Last(usize),
    /// A calendar bucket of a timestamp field, as text (`yyyy`, `yyyyMM`, `yyyyMMdd`, UTC).
    Calendar(CalendarUnit),
}

/// One input of a salt: a field (by name) and the part of it used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaltInput {
    pub(crate) field: String,
    pub(crate) part: Part,
    /// Index into the schema's fields, set when the schema is built.
    pub(crate) index: usize,
}

impl SaltInput {
    /// An input from `field`'s `part`.
    pub fn new(field: impl Into<String>, part: Part) -> SaltInput {
        SaltInput { field: field.into(), part, index: usize::MAX }
    }

    /// The field's text form.
    pub fn text(field: impl Into<String>) -> SaltInput {
        SaltInput::new(field, Part::Text)
    }

    /// Name of the field.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// Part of the field used.
    pub fn part(&self) -> Part {
        self.part
    }
}

/// How the bucket number is computed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SaltStrategy {
    /// Named hash of the concatenated inputs, modulo `buckets` (S3 with a hash).
    Hash {
        /// Hash function.
        algo: HashAlgo,
        /// Inputs, concatenated.
        inputs: Vec<SaltInput>,
        /// Bucket count N.
        buckets: u32,
    },
    /// Named hash of the whole logical key (everything after the salt) modulo `buckets`:
    /// Phoenix `SALT_BUCKETS` and HBaseWD `RowKeyDistributorByHashPrefix` with `JavaBytes`.
    LogicalKeyHash {
        /// Hash function.
        algo: HashAlgo,
        /// Bucket count N.
        buckets: u32,
    },
    /// S1: the first `chars` hex characters of md5(inputs); `16^chars` buckets.
    Md5Hex {
        /// Inputs, concatenated.
        inputs: Vec<SaltInput>,
        /// Hex characters kept (1..=7).
        chars: u32,
    },
    /// S3: a numeric field (or part) modulo `buckets` (`timestamp % N`), Euclidean.
    Modulo {
        /// The numeric input.
        input: SaltInput,
        /// Bucket count N.
        buckets: u32,
    },
    /// S4: a random bucket per write; reads fan out over every bucket.
    Random {
        /// Bucket count N.
        buckets: u32,
    },
    /// HBaseWD `RowKeyDistributorByOneBytePrefix`: round robin with Java's wrapping
    /// `byte` counter; reads fan out over every bucket.
    RoundRobin {
        /// Bucket count (1..=127).
        buckets: u32,
    },
    /// Seed 003: `abs(hash(in1) ^ hash(in2) ^ ...) % N` with Java `String.hashCode`.
    XorJavaHash {
        /// Inputs, each hashed separately.
        inputs: Vec<SaltInput>,
        /// Bucket count N.
        buckets: u32,
    },
    /// Seed 004: `(n1 + n2 + ...) % N` of numeric inputs (`(phone + year) % N`).
    SumMod {
        /// Numeric inputs.
        inputs: Vec<SaltInput>,
        /// Bucket count N.
        buckets: u32,
    },
    /// Socorro: the first hex character of the input is the bucket (16 buckets).
    FirstHexChar {
        /// The id field.
        input: SaltInput,
    },
}

/// How a bucket number is written at the start of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaltRendering {
    /// `width` raw bytes, big-endian (1 = one raw byte, like Phoenix; OpenTSDB's width).
    Bytes(u8),
    /// Zero-padded ASCII decimal of `width` digits (`05`).
    Decimal(u8),
    /// Zero-padded lower-case hex of `width` characters.
    Hex(u8),
}

impl SaltRendering {
    /// Rendered width in bytes.
    pub fn width(self) -> usize {
        match self {
            SaltRendering::Bytes(w) | SaltRendering::Decimal(w) | SaltRendering::Hex(w) => usize::from(w),
        }
    }

    /// Largest bucket count the rendering can hold.
    pub fn capacity(self) -> u64 {
        let (base, w) = match self {
            SaltRendering::Bytes(w) => (256u64, w),
            SaltRendering::Decimal(w) => (10, w),
            SaltRendering::Hex(w) => (16, w),
        };
        base.checked_pow(u32::from(w)).unwrap_or(u64::MAX)
    }

    /// Appends the rendering of `bucket`.
    pub fn render(self, bucket: u32, out: &mut Vec<u8>) {
        match self {
            SaltRendering::Bytes(w) => {
                let w = usize::from(w).min(8);
                out.extend_from_slice(&u64::from(bucket).to_be_bytes()[8 - w..]);
            }
            SaltRendering::Decimal(w) => out.extend_from_slice(format!("{bucket:0w$}", w = usize::from(w)).as_bytes()),
            SaltRendering::Hex(w) => out.extend_from_slice(format!("{bucket:0w$x}", w = usize::from(w)).as_bytes()),
        }
    }

    /// Parses a rendered bucket (exactly `width` bytes).
    pub fn parse(self, b: &[u8]) -> Option<u32> {
        if b.len() != self.width() {
            return None;
        }
        match self {
            SaltRendering::Bytes(_) => {
                let v = b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x));
                u32::try_from(v).ok()
            }
            SaltRendering::Decimal(_) => {
                if !b.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                std::str::from_utf8(b).ok()?.parse().ok()
            }
            SaltRendering::Hex(_) => {
                if !b.iter().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c)) {
                    return None;
                }
                u32::from_str_radix(std::str::from_utf8(b).ok()?, 16).ok()
            }
        }
    }
}

/// Shared counter for round-robin salts (equality ignores it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Counter(Arc<AtomicU8>);

impl PartialEq for Counter {
    fn eq(&self, _: &Counter) -> bool {
        true
    }
}
impl Eq for Counter {}

/// A salt: strategy, rendering and an optional separator after the rendered bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Salt {
    pub(crate) strategy: SaltStrategy,
    pub(crate) rendering: SaltRendering,
    pub(crate) separator: Vec<u8>,
    pub(crate) counter: Counter,
}

/// Number of decimal digits of `n` (at least 1).
pub(crate) fn decimal_digits(n: u64) -> u8 {
    let mut d = 1;
    let mut n = n / 10;
    while n > 0 {
        d += 1;
        n /= 10;
    }
    d
}

impl Salt {
    /// A salt with the given strategy, rendering and no separator.
    pub fn new(strategy: SaltStrategy, rendering: SaltRendering) -> Salt {
        Salt { strategy, rendering, separator: Vec::new(), counter: Counter::default() }
    }

    /// Sets the bytes written after the rendered bucket (`_` in `05_`).
    pub fn with_separator(mut self, sep: impl Into<Vec<u8>>) -> Salt {
        self.separator = sep.into();
        self
    }

    /// Hash of chosen fields (text form) modulo `buckets`, one raw byte if `buckets <= 256`,
    /// else 4 bytes.
    pub fn hash(algo: HashAlgo, fields: &[&str], buckets: u32) -> Salt {
        let rendering = SaltRendering::Bytes(if buckets <= 256 { 1 } else { 4 });
        let inputs = fields.iter().map(|f| SaltInput::text(*f)).collect();
        Salt::new(SaltStrategy::Hash { algo, inputs, buckets }, rendering)
    }

    /// S1: `md5(fields).substr(0, chars)` as hex characters.
    pub fn md5_hex_prefix(fields: &[&str], chars: u8) -> Salt {
        let inputs = fields.iter().map(|f| SaltInput::text(*f)).collect();
        Salt::new(SaltStrategy::Md5Hex { inputs, chars: u32::from(chars) }, SaltRendering::Hex(chars))
    }

    /// S3: `field % buckets`, zero-padded decimal.
    pub fn modulo(field: &str, buckets: u32) -> Salt {
        let w = decimal_digits(u64::from(buckets.saturating_sub(1)));
        Salt::new(SaltStrategy::Modulo { input: SaltInput::text(field), buckets }, SaltRendering::Decimal(w))
    }

    /// S4: a random bucket per write, one raw byte if `buckets <= 256`, else 4 bytes.
    pub fn random(buckets: u32) -> Salt {
        let rendering = SaltRendering::Bytes(if buckets <= 256 { 1 } else { 4 });
        Salt::new(SaltStrategy::Random { buckets }, rendering)
    }

    /// Apache Phoenix `SALT_BUCKETS = n` (1..=256): one byte,
    /// `abs(Arrays.hashCode(rowkey) % n)` over the row key without the salt byte.
    pub fn phoenix(buckets: u32) -> Salt {
        Salt::new(SaltStrategy::LogicalKeyHash { algo: HashAlgo::JavaBytes, buckets }, SaltRendering::Bytes(1))
    }

    /// OpenTSDB `tsd.storage.salt.width` / `.buckets`: `Arrays.hashCode(metric + tags)`
    /// (the encoded bytes of `fields`, timestamp excluded) `% buckets`, negated if
    /// negative, written big-endian in `width` bytes.
    pub fn opentsdb(width: u8, buckets: u32, fields: &[&str]) -> Salt {
        let inputs = fields.iter().map(|f| SaltInput::new(*f, Part::Encoded)).collect();
        Salt::new(SaltStrategy::Hash { algo: HashAlgo::JavaBytes, inputs, buckets }, SaltRendering::Bytes(width))
    }

    /// HBaseWD `RowKeyDistributorByOneBytePrefix(buckets)`: round-robin one-byte prefix.
    pub fn hbasewd_one_byte_prefix(buckets: u8) -> Salt {
        Salt::new(SaltStrategy::RoundRobin { buckets: u32::from(buckets) }, SaltRendering::Bytes(1))
    }

    /// HBaseWD `RowKeyDistributorByHashPrefix(new OneByteSimpleHash(max_buckets))`:
    /// `abs(java31(key)) % max_buckets` in one byte (same bytes as Phoenix, except that we
    /// never produce HBaseWD's negative byte for a hash of `Integer.MIN_VALUE`).
    pub fn hbasewd_hash_prefix(max_buckets: u32) -> Salt {
        Salt::phoenix(max_buckets)
    }

    /// Mozilla Socorro: the first hex character of the crash id is the salt (16 buckets).
    pub fn socorro(id_field: &str) -> Salt {
        Salt::new(SaltStrategy::FirstHexChar { input: SaltInput::text(id_field) }, SaltRendering::Hex(1))
    }

    /// Seed 003: `abs(last4(phone).hashCode() ^ yyyyMM.hashCode()) % regions`, zero-padded
    /// to the width of `regions - 2` (the seed's `NumberUtils.format`), then `_`.
    /// `calltime` is a `yyyyMMddHHmmss` decimal or string field.
    pub fn seed003(phone: &str, calltime: &str, regions: u32) -> Salt {
        let w = decimal_digits(u64::from(regions.saturating_sub(2)));
        Salt::new(
            SaltStrategy::XorJavaHash {
                inputs: vec![SaltInput::new(phone, Part::Last(4)), SaltInput::new(calltime, Part::First(6))],
                buckets: regions,
            },
            SaltRendering::Decimal(w),
        )
        .with_separator("_")
    }

    /// Seed 004: `(phone + year) % regions` (numbers), zero-padded decimal, then `_`.
    pub fn seed004(phone: &str, calltime: &str, regions: u32) -> Salt {
        let w = decimal_digits(u64::from(regions.saturating_sub(1)));
        Salt::new(
            SaltStrategy::SumMod {
                inputs: vec![SaltInput::text(phone), SaltInput::new(calltime, Part::First(4))],
                buckets: regions,
            },
            SaltRendering::Decimal(w),
        )
        .with_separator("_")
    }

    /// The strategy.
    pub fn strategy(&self) -> &SaltStrategy {
        &self.strategy
    }

    /// The rendering.
    pub fn rendering(&self) -> SaltRendering {
        self.rendering
    }

    /// The separator after the rendered bucket.
    pub fn separator(&self) -> &[u8] {
        &self.separator
    }

    /// Number of buckets N; buckets are `0..N`.
    pub fn buckets(&self) -> u32 {
        match &self.strategy {
            SaltStrategy::Hash { buckets, .. }
            | SaltStrategy::LogicalKeyHash { buckets, .. }
            | SaltStrategy::Modulo { buckets, .. }
            | SaltStrategy::Random { buckets }
            | SaltStrategy::RoundRobin { buckets }
            | SaltStrategy::XorJavaHash { buckets, .. }
            | SaltStrategy::SumMod { buckets, .. } => *buckets,
            SaltStrategy::Md5Hex { chars, .. } => 16u32.saturating_pow(*chars),
            SaltStrategy::FirstHexChar { .. } => 16,
        }
    }

    /// Length of the salt prefix (rendering plus separator).
    pub fn prefix_len(&self) -> usize {
        self.rendering.width() + self.separator.len()
    }

    /// Appends the prefix of `bucket`.
    pub fn render_prefix(&self, bucket: u32, out: &mut Vec<u8>) {
        self.rendering.render(bucket, out);
        out.extend_from_slice(&self.separator);
    }

    pub(crate) fn inputs(&self) -> &[SaltInput] {
        match &self.strategy {
            SaltStrategy::Hash { inputs, .. }
            | SaltStrategy::Md5Hex { inputs, .. }
            | SaltStrategy::XorJavaHash { inputs, .. }
            | SaltStrategy::SumMod { inputs, .. } => inputs,
            SaltStrategy::Modulo { input, .. } | SaltStrategy::FirstHexChar { input } => std::slice::from_ref(input),
            SaltStrategy::LogicalKeyHash { .. } | SaltStrategy::Random { .. } | SaltStrategy::RoundRobin { .. } => &[],
        }
    }

    fn inputs_mut(&mut self) -> &mut [SaltInput] {
        match &mut self.strategy {
            SaltStrategy::Hash { inputs, .. }
            | SaltStrategy::Md5Hex { inputs, .. }
            | SaltStrategy::XorJavaHash { inputs, .. }
            | SaltStrategy::SumMod { inputs, .. } => inputs,
            SaltStrategy::Modulo { input, .. } | SaltStrategy::FirstHexChar { input } => std::slice::from_mut(input),
            SaltStrategy::LogicalKeyHash { .. } | SaltStrategy::Random { .. } | SaltStrategy::RoundRobin { .. } => {
                &mut []
            }
        }
    }

    /// True if every key's bucket can be recomputed from its fields (not random/round robin).
    pub fn is_deterministic(&self) -> bool {
        !matches!(self.strategy, SaltStrategy::Random { .. } | SaltStrategy::RoundRobin { .. })
    }

    /// True if the salt hashes the whole logical key.
    pub(crate) fn uses_logical_key(&self) -> bool {
        matches!(self.strategy, SaltStrategy::LogicalKeyHash { .. })
    }

    /// Resolves field names and checks the definition against the fields.
    pub(crate) fn resolve(&mut self, fields: &[Field]) -> Result<(), SchemaError> {
        let n = self.buckets();
        let bad = |s: String| Err(SchemaError::InvalidSalt(s));
        if n == 0 {
            return bad("bucket count must be > 0".into());
        }
        if u64::from(n) > self.rendering.capacity() || self.rendering.width() == 0 {
            return bad(format!("rendering {:?} cannot hold {n} buckets", self.rendering));
        }
        match &self.strategy {
            SaltStrategy::Md5Hex { chars, .. } if *chars == 0 || *chars > 7 => {
                return bad("md5 hex prefix must be 1..=7 characters".into())
            }
            SaltStrategy::RoundRobin { buckets } if *buckets > 127 => {
                return bad("HBaseWD one-byte prefix allows at most 127 buckets".into())
            }
            _ => {}
        }
        if matches!(self.rendering, SaltRendering::Bytes(w) if w > 4) {
            return bad("byte rendering is at most 4 bytes".into());
        }
        for input in self.inputs_mut() {
            let Some(i) = fields.iter().position(|f| f.name == input.field) else {
                return Err(SchemaError::UnknownField(input.field.clone()));
            };
            if fields[i].ty.is_literal() {
                return bad(format!("`{}` is a literal", input.field));
            }
            if matches!(fields[i].ty, FieldType::Cyclic { .. }) {
                return bad(format!(
                    "`{}` is cyclic: it decodes lossily, so the salt could not be checked",
                    input.field
                ));
            }
            if let Part::Calendar(_) = input.part {
                if !matches!(fields[i].ty, FieldType::Timestamp { .. }) {
                    return bad(format!("calendar part needs a timestamp field: `{}`", input.field));
                }
            }
            input.index = i;
        }
        Ok(())
    }

    /// Bucket of a key. `value_of(i)` gives the value of field `i` (None if unknown);
    /// `logical` is the logical key (needed only by [`SaltStrategy::LogicalKeyHash`]).
    pub(crate) fn bucket<'v>(
        &self,
        fields: &[Field],
        value_of: &dyn Fn(usize) -> Option<&'v Value>,
        logical: Option<&[u8]>,
    ) -> Result<u32, KeyError> {
        let n = self.buckets().max(1);
        let part = |inp: &SaltInput| -> Result<Cow<'v, [u8]>, KeyError> {
            let field = fields
                .get(inp.index)
                .ok_or_else(|| KeyError::InvalidQuery { reason: format!("salt field `{}` unresolved", inp.field) })?;
            let v = value_of(inp.index)
                .ok_or_else(|| KeyError::InvalidQuery { reason: format!("salt needs a value for `{}`", inp.field) })?;
            part_bytes(field, v, inp.part)
        };
        let concat = |inputs: &[SaltInput]| -> Result<Cow<'v, [u8]>, KeyError> {
            if let [one] = inputs {
                return part(one);
            }
            let mut d = Vec::new();
            for i in inputs {
                d.extend_from_slice(&part(i)?);
            }
            Ok(Cow::Owned(d))
        };
        Ok(match &self.strategy {
            SaltStrategy::Hash { algo, inputs, .. } => algo.bucket(&concat(inputs)?, n),
            SaltStrategy::LogicalKeyHash { algo, .. } => {
                let l = logical
                    .ok_or_else(|| KeyError::InvalidQuery { reason: "salt needs the whole logical key".into() })?;
                algo.bucket(l, n)
            }
            SaltStrategy::Md5Hex { inputs, chars } => {
                let d = hash::md5(&concat(inputs)?);
                let top = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
                top >> (32 - 4 * (*chars).clamp(1, 7))
            }
            SaltStrategy::Modulo { input, .. } => rem(number(&part(input)?, &input.field)?, n),
            SaltStrategy::SumMod { inputs, .. } => {
                let mut sum = 0i128;
                for i in inputs {
                    sum = sum.saturating_add(number(&part(i)?, &i.field)?);
                }
                rem(sum, n)
            }
            SaltStrategy::XorJavaHash { inputs, .. } => {
                let mut x = 0i32;
                for i in inputs {
                    x ^= hash::java_string_hash(&String::from_utf8_lossy(&part(i)?));
                }
                hash::java_abs_mod(x, n)
            }
            SaltStrategy::FirstHexChar { input } => {
                let t = part(input)?;
                match t.first().and_then(|c| char::from(*c).to_digit(16)) {
                    Some(d) => d,
                    None => {
                        return Err(KeyError::OutOfRange {
                            field: input.field.clone(),
                            reason: "Socorro salt needs an id starting with a hex digit".into(),
                        })
                    }
                }
            }
            SaltStrategy::Random { .. } => random_u64().rem_euclid(u64::from(n)) as u32,
            SaltStrategy::RoundRobin { .. } => {
                // Java: byte nextPrefix; Math.abs(nextPrefix++ % maxPrefix)
                let c = self.counter.0.fetch_add(1, AtomicOrdering::Relaxed) as i8;
                (i32::from(c) % n as i32).unsigned_abs()
            }
        })
    }
}

fn rem(x: i128, n: u32) -> u32 {
    x.rem_euclid(i128::from(n)) as u32
}

fn number(b: &[u8], field: &str) -> Result<i128, KeyError> {
    std::str::from_utf8(b)
        .ok()
        .and_then(|s| s.parse::<i128>().ok())
        .ok_or_else(|| KeyError::OutOfRange { field: field.to_owned(), reason: "salt input is not a number".into() })
}

fn random_u64() -> u64 {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(SEQ.fetch_add(1, AtomicOrdering::Relaxed));
    h.finish()
}

/// Bytes of `part` of value `v` of `field`.
pub(crate) fn part_bytes<'v>(field: &Field, v: &'v Value, part: Part) -> Result<Cow<'v, [u8]>, KeyError> {
    Ok(Cow::Owned(match part {
        Part::Encoded => {
            let mut out = Vec::new();
            codec::encode_field(field, Some(v), &mut out)?;
            out
        }
        Part::Text => match v {
            Value::Str(s) => return Ok(Cow::Borrowed(s.as_bytes())),
            Value::Bytes(b) => return Ok(Cow::Borrowed(b)),
            _ => codec::text_bytes(field, v),
        },
        Part::First(n) => {
            let t = String::from_utf8_lossy(&codec::text_bytes(field, v)).into_owned();
            t.chars().take(n).collect::<String>().into_bytes()
        }
        Part::Last(n) => {
            let t = String::from_utf8_lossy(&codec::text_bytes(field, v)).into_owned();
            let len = t.chars().count();
            t.chars().skip(len.saturating_sub(n)).collect::<String>().into_bytes()
        }
        Part::Calendar(unit) => {
            let per = match &field.ty {
                FieldType::Timestamp { unit, .. } => unit.per_second(),
                _ => 1,
            };
            match v {
                Value::Timestamp(t) | Value::Int(t) => calendar::bucket_text(*t, per, unit).into_bytes(),
                other => {
                    return Err(KeyError::TypeMismatch {
                        field: field.name.clone(),
                        expected: "timestamp",
                        got: other.kind(),
                    })
                }
            }
        }
    }))
}
