//! What the merge reads from: each planned range's rows ([`BucketSource`]), and where
//! each row's logical key starts ([`LogicalOffset`]), known per source, not parsed per
//! row.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use basalt_rowkey::Schema;
use bytes::Bytes;
use futures::Stream;

use crate::error::Result;
use crate::metrics;
use crate::row::Row;
use crate::scan::RowStream;

/// Where a stored key's logical part starts, given the index of the source it came
/// from.
pub(crate) trait LogicalOffset {
    /// The length of `key`'s salt prefix; an error if `key` has no valid salt.
    fn offset(&self, source: usize, key: &[u8]) -> Result<usize>;
}

/// The public merge's form: one function of the key, the same for every source.
pub(crate) struct SameForEvery<F>(pub(crate) F);

impl<F: Fn(&[u8]) -> Result<usize>> LogicalOffset for SameForEvery<F> {
    #[inline]
    fn offset(&self, _source: usize, key: &[u8]) -> Result<usize> {
        (self.0)(key)
    }
}

/// Each planned range's salt prefix, rendered once: a row that starts with its range's
/// prefix has its logical key right after it, with no parse. Any other row (none, if
/// the server keeps to the range) goes through [`Schema::logical_key`], so a key
/// without a valid salt is still an error, as it always was.
pub(crate) struct SaltPrefixes {
    schema: Arc<Schema>,
    /// Per source: the prefix every key of its bucket starts with, if it is one that
    /// [`Schema::split_salt`] accepts whole (then any key starting with it splits
    /// right after it, since the split reads only the prefix's bytes).
    known: Vec<Option<KnownPrefix>>,
}

/// A salt prefix, and for one of at most 8 bytes the same as an integer, so that the
/// check of a key of 8 bytes or more is one load and one comparison.
struct KnownPrefix {
    bytes: Bytes,
    /// The prefix's bytes, big-endian, at the top of the integer (0 below).
    head: u64,
    /// Ones over the prefix's bytes; 0 when the prefix is longer than 8 bytes.
    mask: u64,
}

impl KnownPrefix {
    fn new(bytes: Bytes) -> KnownPrefix {
        let (head, mask) = match bytes.len() {
            0 => (0, 0),
            n @ 1..=8 => {
                let mut padded = [0u8; 8];
                padded[..n].copy_from_slice(&bytes);
                (u64::from_be_bytes(padded), u64::MAX << (8 * (8 - n)))
            }
            _ => (0, 0),
        };
        KnownPrefix { bytes, head, mask }
    }

    #[inline]
    fn starts(&self, key: &[u8]) -> bool {
        match key.first_chunk::<8>() {
            Some(first) if self.mask != 0 => u64::from_be_bytes(*first) & self.mask == self.head,
            Some(_) | None => key.starts_with(&self.bytes),
        }
    }
}

impl SaltPrefixes {
    /// The prefixes of these buckets, one per source (`None`: an unsalted range).
    pub(crate) fn new(schema: Arc<Schema>, buckets: impl IntoIterator<Item = Option<u32>>) -> SaltPrefixes {
        let known = buckets.into_iter().map(|bucket| SaltPrefixes::checked_prefix(&schema, bucket)).collect();
        SaltPrefixes { schema, known }
    }

    fn checked_prefix(schema: &Schema, bucket: Option<u32>) -> Option<KnownPrefix> {
        let prefix = match bucket {
            Some(bucket) => schema.try_salt_prefix(bucket).ok()?,
            None => Bytes::new(),
        };
        match schema.split_salt(&prefix) {
            Ok((_, [])) => Some(KnownPrefix::new(prefix)),
            Ok(_) | Err(_) => None,
        }
    }

    /// A key outside its source's prefix: parse its salt.
    #[inline(never)]
    fn parse(&self, key: &[u8]) -> Result<usize> {
        Ok(key.len() - self.schema.logical_key(key)?.len())
    }
}

impl LogicalOffset for SaltPrefixes {
    #[inline]
    fn offset(&self, source: usize, key: &[u8]) -> Result<usize> {
        if let Some(Some(prefix)) = self.known.get(source) {
            if prefix.starts(key) {
                return Ok(prefix.bytes.len());
            }
        }
        self.parse(key)
    }
}

/// One planned range's rows on their way to the merge: its pieces' streams one after
/// the other (one piece unless the scan is split at regions), counted for the metrics
/// ([`metrics::bucket_rows`]) when the last piece ends or the source is dropped before.
pub(crate) struct BucketSource {
    current: Option<RowStream>,
    /// The pieces after `current`, in scan order.
    rest: std::vec::IntoIter<RowStream>,
    /// Complete rows read so far (a row in parts counts once, at its last part).
    count: u64,
    recorded: bool,
}

impl BucketSource {
    /// The rows of `pieces`, in this order.
    pub(crate) fn new(pieces: Vec<RowStream>) -> BucketSource {
        // The merge reads the buckets in turn: each row's key is loaded ahead.
        let mut rest = pieces.into_iter().map(RowStream::prefetching_keys).collect::<Vec<_>>().into_iter();
        BucketSource { current: rest.next(), rest, count: 0, recorded: false }
    }

    fn record(&mut self) {
        if !self.recorded {
            self.recorded = true;
            metrics::bucket_rows(self.count);
        }
    }
}

impl Stream for BucketSource {
    type Item = Result<Row>;

    #[inline]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            let Some(piece) = this.current.as_mut() else {
                this.record();
                return Poll::Ready(None);
            };
            match Pin::new(piece).poll_next(cx) {
                Poll::Ready(Some(Ok(row))) => {
                    if !row.is_partial() {
                        this.count += 1;
                    }
                    return Poll::Ready(Some(Ok(row)));
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => this.current = this.rest.next(),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl Drop for BucketSource {
    fn drop(&mut self) {
        self.record();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_rowkey::{FieldType, Salt};

    fn schema() -> Arc<Schema> {
        let schema =
            Schema::builder().field("n", FieldType::Decimal { digits: 4 }).salt(Salt::modulo("n", 16)).build().unwrap();
        Arc::new(schema)
    }

    /// A key with its own range's prefix skips the parse; a key of another bucket, a
    /// short key and a key with a bad salt get what the parse says, as before.
    #[test]
    fn known_prefixes_agree_with_the_parse() {
        let schema = schema();
        let prefixes = SaltPrefixes::new(Arc::clone(&schema), [Some(0), Some(7), None, Some(99)]);
        assert_eq!(prefixes.known[1].as_ref().map(|p| &p.bytes[..]), Some(&b"07"[..]));
        assert!(prefixes.known[2].is_none(), "a salted schema has no empty prefix");
        assert!(prefixes.known[3].is_none(), "bucket 99 is out of range");
        let parse = |key: &[u8]| schema.logical_key(key).map(|l| key.len() - l.len()).ok();
        let keys = [
            &b"070123"[..],
            b"00",
            b"150042",
            b"07",
            b"0",
            b"",
            b"x70123",
            b"990001",
            b"16",
            b"07012345678",
            b"17012345678",
            b"0701234567",
            b"06999999999",
        ];
        for key in keys {
            for source in 0..5 {
                assert_eq!(prefixes.offset(source, key).ok(), parse(key), "{key:?} from source {source}");
            }
        }
        let unsalted = Arc::new(Schema::builder().field("n", FieldType::U64).build().unwrap());
        let plain = SaltPrefixes::new(unsalted, [None]);
        assert_eq!(plain.known[0].as_ref().map(|p| &p.bytes[..]), Some(&b""[..]));
        assert_eq!(plain.offset(0, b"anything").unwrap(), 0);
    }

    /// The one-load check equals `starts_with` for prefixes of 0 to 11 bytes and keys
    /// of 0 to 13 bytes that match, fall short, or differ in any one byte.
    #[test]
    fn the_integer_check_equals_starts_with() {
        for len in 0..12u8 {
            let prefix: Vec<u8> = (0..len).map(|i| i.wrapping_mul(37).wrapping_add(1)).collect();
            let known = KnownPrefix::new(Bytes::from(prefix.clone()));
            for key_len in 0..14 {
                for flip in 0..=key_len {
                    let mut key: Vec<u8> =
                        prefix.iter().copied().chain(std::iter::repeat(0xab)).take(key_len).collect();
                    if let Some(byte) = key.get_mut(flip) {
                        *byte ^= 0x10;
                    }
                    assert_eq!(known.starts(&key), key.starts_with(&prefix), "prefix {prefix:?}, key {key:?}");
                }
            }
        }
    }
}
