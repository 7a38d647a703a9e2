//! Salts: bucket strategies, renderings and byte-exact compatibility presets.
//!
//! - this file: [`Salt`] (its constructors, its buckets and prefixes), [`SaltInput`],
//!   [`Part`];
//! - `strategy.rs`: [`SaltStrategy`], how the bucket number is computed;
//! - `rendering.rs`: [`SaltRendering`], how it is written;
//! - `resolve.rs`: checking a definition against the schema's fields;
//! - `bucket.rs`: the bucket of a key.

use std::sync::atomic::AtomicU8;
use std::sync::Arc;

use crate::calendar::CalendarUnit;
use crate::hash::HashAlgo;

mod bucket;
mod rendering;
mod resolve;
mod strategy;

pub use rendering::SaltRendering;
pub use strategy::SaltStrategy;

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
    /// The first `n` UTF-16 units of the text form, as Java's `date.substring(0, 6)`
    /// (`yyyyMM`); a text shorter than `n` units is refused (Java throws).
    First(usize),
    /// The last `n` UTF-16 units of the text form, as Java's `tel.substring(len - 4)`
    /// (a character outside the BMP counts two); a text shorter than `n` units is
    /// refused (Java throws).
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

/// Width of `Integer.toString(n).length()` for a possibly negative `n` (the call-record salt's padding).
pub(crate) fn java_int_text_len(n: i64) -> u8 {
    n.to_string().len() as u8
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

    /// `md5(fields).substr(0, chars)` as hex characters.
    pub fn md5_hex_prefix(fields: &[&str], chars: u8) -> Salt {
        let inputs = fields.iter().map(|f| SaltInput::text(*f)).collect();
        Salt::new(SaltStrategy::Md5Hex { inputs, chars: u32::from(chars) }, SaltRendering::Hex(chars))
    }

    /// `field % buckets`, zero-padded decimal.
    pub fn modulo(field: &str, buckets: u32) -> Salt {
        let w = decimal_digits(u64::from(buckets.saturating_sub(1)));
        Salt::new(SaltStrategy::Modulo { input: SaltInput::text(field), buckets }, SaltRendering::Decimal(w))
    }

    /// A random bucket per write, one raw byte if `buckets <= 256`, else 4 bytes.
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
}
