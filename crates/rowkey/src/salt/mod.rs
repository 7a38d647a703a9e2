//! Salts (S1-S6): bucket strategies, renderings and byte-exact compatibility presets.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering as AtomicOrdering};
use std::sync::Arc;

use crate::calendar::{self, CalendarUnit};
use crate::codec;
use crate::error::{KeyError, SchemaError};
use crate::field::{Field, FieldType};
use crate::hash::{self, HashAlgo, JavaBucketForm, JavaHash};
use crate::value::Value;

/// Most buckets a salt may have (2^20): plans, salted scans and split keys hold one
/// entry per bucket, so a schema file cannot make them allocate without bound.
pub const MAX_BUCKETS: u32 = 1 << 20;

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
    /// Phoenix `SALT_BUCKETS` with `JavaBytes` (`Math.abs(h % N)`).
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
        /// Hex characters kept (1..=5, at most [`MAX_BUCKETS`] buckets).
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
    /// HBaseWD `RowKeyDistributorByOneBytePrefix`: round robin, buckets `0, 1, .. N-1, 0,
    /// ..` (its `PREFIXES[next++]; next = (byte) (next % N)`); reads fan out over every
    /// bucket.
    RoundRobin {
        /// Bucket count (1..=127).
        buckets: u32,
    },
    /// A Java hash turned into a bucket by one of the forms found in Java code
    /// ([`JavaBucketForm`]). Negative results (possible with `AbsThenRem` and
    /// `ByteOfRem`) are extra buckets numbered from `buckets` on, written as Java
    /// writes them: two's complement in a byte rendering; a decimal or hex rendering
    /// refuses them (the prefix would change width).
    JavaHash {
        /// Hash function.
        hash: JavaHash,
        /// How the hash becomes a bucket.
        form: JavaBucketForm,
        /// Inputs, concatenated; empty = the whole logical key (HBaseWD's hash prefix).
        inputs: Vec<SaltInput>,
        /// Bucket count N of the Java expression.
        buckets: u32,
    },
    /// OpenTSDB 2.4 `RowKey.prefixKeyWithSalt`: `Math.abs(Arrays.hashCode(metric + tags)
    /// % N)`, except rows whose metric (first input) is all zero bytes (annotation rows),
    /// which keep salt 0. The salt is written by `getSaltBytes`, whose `int` shifts wrap
    /// for widths over 4 (width 8 repeats the 4-byte big-endian bucket twice).
    OpenTsdb {
        /// Metric, then tags (their encoded bytes).
        inputs: Vec<SaltInput>,
        /// Bucket count N.
        buckets: u32,
    },
    /// Socorro `ooid_to_row_id`: the id's first character as written (`0-9a-f` are
    /// buckets 0..15, `A-F` buckets 16..21), optionally checked against a date field
    /// that must equal the id's last six characters.
    Socorro {
        /// The crash id field.
        id: SaltInput,
        /// The `yymmdd` field checked against the id, if any.
        date: Option<SaltInput>,
    },
    /// Seed 003: `Math.abs(hash(in1) ^ hash(in2) ^ ...) % N` with Java `String.hashCode`
    /// (negative when the XOR is `Integer.MIN_VALUE`, see [`SaltStrategy::JavaHash`]).
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
    /// The first hex digit of the input is the bucket (16 buckets; upper- and lower-case
    /// digits give the same bucket). Socorro's exact layout is [`SaltStrategy::Socorro`].
    FirstHexChar {
        /// The id field.
        input: SaltInput,
    },
}

/// How a bucket number is written at the start of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaltRendering {
    /// `width` raw bytes (1..=8), big-endian (1 = one raw byte, like Phoenix; OpenTSDB's
    /// salt width, with its own layout over 4 bytes, see [`SaltStrategy::OpenTsdb`]).
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
    /// Negative Java results with a prefix of their own (buckets `N..`), set by `resolve`.
    pub(crate) negatives: Vec<i32>,
}

/// Socorro's salt characters in bucket order.
pub(crate) const SOCORRO_CHARS: &[u8; 22] = b"0123456789abcdefABCDEF";

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
        Salt { strategy, rendering, separator: Vec::new(), counter: Counter::default(), negatives: Vec::new() }
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

    /// Number of buckets; buckets are `0..buckets()`. This is the strategy's N plus the
    /// extra buckets of negative Java results (see [`SaltStrategy::JavaHash`]) and
    /// Socorro's upper-case prefixes.
    pub fn buckets(&self) -> u32 {
        self.base_buckets() + self.negatives.len() as u32
    }

    /// The strategy's own bucket count N.
    pub(crate) fn base_buckets(&self) -> u32 {
        match &self.strategy {
            SaltStrategy::Hash { buckets, .. }
            | SaltStrategy::LogicalKeyHash { buckets, .. }
            | SaltStrategy::Modulo { buckets, .. }
            | SaltStrategy::Random { buckets }
            | SaltStrategy::RoundRobin { buckets }
            | SaltStrategy::JavaHash { buckets, .. }
            | SaltStrategy::OpenTsdb { buckets, .. }
            | SaltStrategy::XorJavaHash { buckets, .. }
            | SaltStrategy::SumMod { buckets, .. } => *buckets,
            SaltStrategy::Md5Hex { chars, .. } => 16u32.saturating_pow(*chars),
            SaltStrategy::FirstHexChar { .. } => 16,
            SaltStrategy::Socorro { .. } => SOCORRO_CHARS.len() as u32,
        }
    }

    /// Length of the salt prefix (rendering plus separator).
    pub fn prefix_len(&self) -> usize {
        self.rendering.width() + self.separator.len()
    }

    /// Appends the prefix of `bucket`.
    pub fn render_prefix(&self, bucket: u32, out: &mut Vec<u8>) {
        match (&self.strategy, self.rendering) {
            (SaltStrategy::Socorro { .. }, _) => {
                out.push(SOCORRO_CHARS.get(bucket as usize).copied().unwrap_or(b'0'));
            }
            (SaltStrategy::OpenTsdb { .. }, SaltRendering::Bytes(w)) => {
                // OpenTSDB's getSaltBytes: bytes[w - i] = (byte) (bucket >>> 8 * (i - 1)),
                // an int shift, so the distance wraps at 32.
                let start = out.len();
                out.resize(start + usize::from(w), 0);
                for i in 1..=usize::from(w) {
                    out[start + usize::from(w) - i] = (bucket >> ((8 * (i - 1)) % 32)) as u8;
                }
            }
            (_, SaltRendering::Bytes(w)) if bucket >= self.base_buckets() => {
                let j = self.negatives.get((bucket - self.base_buckets()) as usize).copied().unwrap_or(0);
                let w = usize::from(w).min(8);
                out.extend_from_slice(&i64::from(j).to_be_bytes()[8 - w..]);
            }
            (_, r) => r.render(bucket, out),
        }
        out.extend_from_slice(&self.separator);
    }

    /// The bucket of a rendered salt (exactly the rendering's width, no separator).
    pub(crate) fn parse_bucket(&self, b: &[u8]) -> Option<u32> {
        if let SaltStrategy::Socorro { .. } = self.strategy {
            return match b {
                [c] => SOCORRO_CHARS.iter().position(|x| x == c).map(|p| p as u32),
                _ => None,
            };
        }
        let n = self.base_buckets();
        let wide_opentsdb = matches!((&self.strategy, self.rendering), (SaltStrategy::OpenTsdb { .. }, SaltRendering::Bytes(w)) if w > 4);
        if self.negatives.is_empty() && !wide_opentsdb {
            // The common case: the rendering alone (no allocation; merged scans call this per row).
            return self.rendering.parse(b);
        }
        let plain = if wide_opentsdb {
            b.get(b.len().saturating_sub(4)..).and_then(|t| t.try_into().ok()).map(u32::from_be_bytes)
        } else {
            self.rendering.parse(b)
        };
        let rendered = |bucket: u32| {
            let mut v = Vec::with_capacity(b.len() + self.separator.len());
            self.render_prefix(bucket, &mut v);
            v.truncate(b.len());
            v
        };
        if let Some(p) = plain.filter(|p| *p < n) {
            return (rendered(p) == b).then_some(p);
        }
        (n..self.buckets()).find(|x| rendered(*x) == b).or(plain)
    }

    pub(crate) fn inputs(&self) -> &[SaltInput] {
        match &self.strategy {
            SaltStrategy::Hash { inputs, .. }
            | SaltStrategy::Md5Hex { inputs, .. }
            | SaltStrategy::XorJavaHash { inputs, .. }
            | SaltStrategy::JavaHash { inputs, .. }
            | SaltStrategy::OpenTsdb { inputs, .. }
            | SaltStrategy::SumMod { inputs, .. } => inputs,
            // The date (if any) precedes the id in the key, so it is fixed whenever the id is.
            SaltStrategy::Modulo { input, .. }
            | SaltStrategy::FirstHexChar { input }
            | SaltStrategy::Socorro { id: input, .. } => std::slice::from_ref(input),
            SaltStrategy::LogicalKeyHash { .. } | SaltStrategy::Random { .. } | SaltStrategy::RoundRobin { .. } => &[],
        }
    }

    /// Every input, the Socorro date included (for resolving names).
    fn inputs_mut(&mut self) -> Vec<&mut SaltInput> {
        match &mut self.strategy {
            SaltStrategy::Hash { inputs, .. }
            | SaltStrategy::Md5Hex { inputs, .. }
            | SaltStrategy::XorJavaHash { inputs, .. }
            | SaltStrategy::JavaHash { inputs, .. }
            | SaltStrategy::OpenTsdb { inputs, .. }
            | SaltStrategy::SumMod { inputs, .. } => inputs.iter_mut().collect(),
            SaltStrategy::Socorro { id, date } => std::iter::once(id).chain(date.as_mut()).collect(),
            SaltStrategy::Modulo { input, .. } | SaltStrategy::FirstHexChar { input } => vec![input],
            SaltStrategy::LogicalKeyHash { .. } | SaltStrategy::Random { .. } | SaltStrategy::RoundRobin { .. } => {
                Vec::new()
            }
        }
    }

    /// True if every key's bucket can be recomputed from its fields (not random/round robin).
    pub fn is_deterministic(&self) -> bool {
        !matches!(self.strategy, SaltStrategy::Random { .. } | SaltStrategy::RoundRobin { .. })
    }

    /// True if the salt hashes the whole logical key.
    pub(crate) fn uses_logical_key(&self) -> bool {
        match &self.strategy {
            SaltStrategy::LogicalKeyHash { .. } => true,
            SaltStrategy::JavaHash { inputs, .. } => inputs.is_empty(),
            _ => false,
        }
    }

    /// Negative Java results the strategy can produce.
    fn negative_results(&self) -> Vec<i32> {
        match &self.strategy {
            SaltStrategy::JavaHash { form, buckets, .. } => form.negative_results(*buckets),
            SaltStrategy::XorJavaHash { buckets, .. } => JavaBucketForm::AbsThenRem.negative_results(*buckets),
            _ => Vec::new(),
        }
    }

    /// The bucket of a Java result `j` (negative ones are extra buckets, or the regular
    /// bucket whose bytes they share).
    fn bucket_of_java(&self, j: i32, field: &str) -> Result<u32, KeyError> {
        let n = self.base_buckets();
        if j >= 0 {
            return Ok(j as u32);
        }
        if let SaltRendering::Bytes(w) = self.rendering {
            let modulus = 1i128 << (8 * u32::from(w.min(8)));
            let wrapped = i128::from(j).rem_euclid(modulus);
            if wrapped < i128::from(n) {
                return Ok(wrapped as u32);
            }
            if let Some(i) = self.negatives.iter().position(|x| *x == j) {
                return Ok(n + i as u32);
            }
        }
        let text = match self.rendering {
            SaltRendering::Decimal(w) => format!("-{:0w$}", j.unsigned_abs(), w = usize::from(w)),
            _ => j.to_string(),
        };
        Err(KeyError::OutOfRange {
            field: field.to_owned(),
            reason: format!(
                "the Java expression gives the negative bucket {j} (its hashes reach Integer.MIN_VALUE, \
                 where Math.abs stays negative); Java would write the salt `{text}`, a prefix of another \
                 width that no bucket scan or split key covers, so Basalt refuses this key \
                 (change the input or use a byte rendering, which keeps negative buckets)"
            ),
        })
    }

    /// Resolves field names and checks the definition against the fields.
    pub(crate) fn resolve(&mut self, fields: &[Field]) -> Result<(), SchemaError> {
        let n = self.base_buckets();
        let bad = |s: String| Err(SchemaError::InvalidSalt(s));
        if n == 0 {
            return bad("bucket count must be > 0".into());
        }
        if let (SaltStrategy::XorJavaHash { .. }, SaltRendering::Decimal(w)) = (&self.strategy, self.rendering) {
            let last = n - 1;
            if decimal_digits(u64::from(last)) > w && w == crate::presets::java_int_text_len(i64::from(n) - 2) {
                return bad(format!(
                    "seed 003 with {n} regions pads the salt to the digits of {n} - 2 ({w}), so its last \
                     salt is written `{last}_`, one digit wider: that sorts between `1_` and `2_`, the seed's \
                     split keys put it in the region of salt 1 and leave the last region empty; use {} or {} \
                     regions",
                    n - 1,
                    n + 1
                ));
            }
        }
        let capacity = match self.strategy {
            SaltStrategy::Socorro { .. } => u64::from(n),
            _ => self.rendering.capacity(),
        };
        if u64::from(n) > capacity || self.rendering.width() == 0 {
            return bad(format!(
                "rendering {:?} cannot hold {n} buckets: it writes at most {capacity} distinct prefixes; \
                 widen the rendering (`width`) or use fewer buckets",
                self.rendering
            ));
        }
        match &self.strategy {
            SaltStrategy::Md5Hex { chars, .. } if *chars == 0 || *chars > 5 => {
                return bad(format!(
                    "md5 hex prefix must be 1..=5 characters ({chars} given: 16^chars buckets, at most 2^20)"
                ))
            }
            SaltStrategy::RoundRobin { buckets } if *buckets > 127 => {
                return bad(format!(
                    "HBaseWD's one-byte prefix takes its count as a Java byte, so at most 127 buckets \
                     ({buckets} given); use 127 or fewer, or a hash prefix for more"
                ))
            }
            SaltStrategy::JavaHash { buckets, .. } | SaltStrategy::XorJavaHash { buckets, .. }
                if i32::try_from(*buckets).is_err() =>
            {
                return bad("a Java bucket count is an int: use at most 2147483647 buckets".into())
            }
            _ => {}
        }
        if self.buckets() > MAX_BUCKETS {
            return bad(format!(
                "{} buckets is over the limit of {MAX_BUCKETS}: a plan, a salted scan and the split keys \
                 hold one entry per bucket",
                self.buckets()
            ));
        }
        if matches!(self.rendering, SaltRendering::Bytes(w) if w > 8) {
            return bad("byte rendering is at most 8 bytes".into());
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
        if let SaltStrategy::Socorro { id, date } = &mut self.strategy {
            if date.is_none() {
                // The value field right before the id, if it is 6 wide, is Socorro's date part.
                let before = fields[..id.index].iter().rev().find(|f| !f.ty.is_literal());
                if let Some(f) = before.filter(|f| f.ty.fixed_width() == Some(6)) {
                    let index = fields.iter().position(|x| x.name == f.name).unwrap_or(usize::MAX);
                    *date = Some(SaltInput { field: f.name.clone(), part: Part::Text, index });
                }
            }
        }
        let mut negatives = Vec::new();
        if let SaltRendering::Bytes(w) = self.rendering {
            let modulus = 1i128 << (8 * u32::from(w.min(8)));
            for j in self.negative_results() {
                if i128::from(j).rem_euclid(modulus) >= i128::from(n) && !negatives.contains(&j) {
                    negatives.push(j);
                }
            }
        }
        self.negatives = negatives;
        Ok(())
    }

    /// Bucket of a key. `value_of(i)` gives the value of field `i` (None if unknown);
    /// `logical` is the logical key (needed by salts over the whole logical key).
    pub(crate) fn bucket<'v>(
        &self,
        fields: &[Field],
        value_of: &dyn Fn(usize) -> Option<&'v Value>,
        logical: Option<&[u8]>,
    ) -> Result<u32, KeyError> {
        let n = self.base_buckets().max(1);
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
        let whole_key =
            || logical.ok_or_else(|| KeyError::InvalidQuery { reason: "salt needs the whole logical key".into() });
        Ok(match &self.strategy {
            SaltStrategy::Hash { algo, inputs, .. } => algo.bucket(&concat(inputs)?, n),
            SaltStrategy::LogicalKeyHash { algo, .. } => algo.bucket(whole_key()?, n),
            SaltStrategy::JavaHash { hash, form, inputs, .. } => {
                let data: Cow<'_, [u8]> = if inputs.is_empty() { Cow::Borrowed(whole_key()?) } else { concat(inputs)? };
                let name = inputs.first().map_or("(row key)", |i| i.field.as_str());
                let h = match hash {
                    JavaHash::Bytes => hash::java_bytes_hash(&data),
                    JavaHash::String => hash::java_string_hash_utf8(&data),
                    JavaHash::Long => {
                        let v =
                            std::str::from_utf8(&data).ok().and_then(|t| t.parse::<i64>().ok()).ok_or_else(|| {
                                KeyError::OutOfRange {
                                    field: name.to_owned(),
                                    reason: "Long.hashCode needs a decimal integer that fits a Java long".into(),
                                }
                            })?;
                        hash::java_long_hash(v)
                    }
                };
                self.bucket_of_java(form.apply(h, n), name)?
            }
            SaltStrategy::OpenTsdb { inputs, .. } => {
                let metric = match inputs.first() {
                    Some(m) => part(m)?,
                    None => Cow::Borrowed(&[][..]),
                };
                if metric.iter().all(|b| *b == 0) {
                    0 // annotation row: OpenTSDB leaves it unsalted
                } else {
                    hash::java_abs_mod(hash::java_bytes_hash(&concat(inputs)?), n)
                }
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
                    x ^= hash::java_string_hash_utf8(&part(i)?);
                }
                let name = inputs.first().map_or("", |i| i.field.as_str());
                self.bucket_of_java(JavaBucketForm::AbsThenRem.apply(x, n), name)?
            }
            SaltStrategy::FirstHexChar { input } => {
                let t = part(input)?;
                match t.first().and_then(|c| char::from(*c).to_digit(16)) {
                    Some(d) => d,
                    None => {
                        return Err(KeyError::OutOfRange {
                            field: input.field.clone(),
                            reason: "the salt is the first hex digit of this field, and it starts with none".into(),
                        })
                    }
                }
            }
            SaltStrategy::Socorro { id, date } => {
                let t = part(id)?;
                if let Some(d) = date {
                    let want = part(d)?;
                    let tail = t.get(t.len().saturating_sub(6)..).unwrap_or_default();
                    if t.len() < 6 || *want != *tail {
                        return Err(KeyError::OutOfRange {
                            field: d.field.clone(),
                            reason: format!(
                                "Socorro takes the date part of the row key from the id's last six characters \
                                 (`{}`), but this field is `{}`; pass the id's own date",
                                String::from_utf8_lossy(tail),
                                String::from_utf8_lossy(&want)
                            ),
                        });
                    }
                }
                match t.first().and_then(|c| SOCORRO_CHARS.iter().position(|x| x == c)) {
                    Some(p) => p as u32,
                    None => {
                        return Err(KeyError::OutOfRange {
                            field: id.field.clone(),
                            reason: "a Socorro crash id starts with a hex digit, its salt; Socorro would \
                                     store this id under a prefix none of its scanners reads, so Basalt \
                                     refuses it: use an id made like Socorro's (a uuid ending in the date)"
                                .into(),
                        })
                    }
                }
            }
            SaltStrategy::Random { .. } => random_u64().rem_euclid(u64::from(n)) as u32,
            SaltStrategy::RoundRobin { .. } => {
                // HBaseWD: PREFIXES[nextPrefix++]; nextPrefix = (byte) (nextPrefix % maxPrefix)
                let step = |c: u8| Some(((u32::from(c) + 1) % n) as u8);
                match self.counter.0.fetch_update(AtomicOrdering::Relaxed, AtomicOrdering::Relaxed, step) {
                    Ok(prev) | Err(prev) => u32::from(prev) % n,
                }
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
