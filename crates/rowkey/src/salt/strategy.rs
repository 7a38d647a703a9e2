//! How a salt computes the bucket number: [`SaltStrategy`].

use super::SaltInput;
use crate::hash::{HashAlgo, JavaBucketForm, JavaHash};

/// How the bucket number is computed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SaltStrategy {
    /// Named hash of the concatenated inputs, modulo `buckets` (a modulo bucket over a hash).
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
    /// The first `chars` hex characters of md5(inputs); `16^chars` buckets.
    Md5Hex {
        /// Inputs, concatenated.
        inputs: Vec<SaltInput>,
        /// Hex characters kept (1..=5, at most [`MAX_BUCKETS`](super::MAX_BUCKETS) buckets).
        chars: u32,
    },
    /// A numeric field (or part) modulo `buckets` (`timestamp % N`), Euclidean.
    Modulo {
        /// The numeric input.
        input: SaltInput,
        /// Bucket count N.
        buckets: u32,
    },
    /// A random bucket per write; reads fan out over every bucket.
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
    /// The salted call records' salt: `Math.abs(hash(in1) ^ hash(in2) ^ ...) % N` with Java `String.hashCode`
    /// (negative when the XOR is `Integer.MIN_VALUE`, see [`SaltStrategy::JavaHash`]).
    XorJavaHash {
        /// Inputs, each hashed separately.
        inputs: Vec<SaltInput>,
        /// Bucket count N.
        buckets: u32,
    },
    /// The phone-and-year salt: `(n1 + n2 + ...) % N` of numeric inputs (`(phone + year) % N`).
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
