//! Row keys compared as HBase orders them (unsigned bytes, a prefix first), eight bytes
//! at a time: a page's check compares each row's key with its neighbour and the range's
//! ends, and the library `memcmp` it called for each cost more per row than the rest of
//! the check.

use std::cmp::Ordering;

/// Words compared before the rest is: as padded words when both tails are short, else
/// by the slices' own comparison.
const WORDS: usize = 4;

/// `a` against `b` in byte order.
#[inline]
pub(crate) fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let (mut x, mut y) = (a, b);
    for _ in 0..WORDS {
        match (x.split_first_chunk::<8>(), y.split_first_chunk::<8>()) {
            (Some((x_word, x_rest)), Some((y_word, y_rest))) => {
                let order = u64::from_be_bytes(*x_word).cmp(&u64::from_be_bytes(*y_word));
                if order.is_ne() {
                    return order;
                }
                (x, y) = (x_rest, y_rest);
            }
            (Some(_), None) | (None, Some(_)) | (None, None) => break,
        }
    }
    if x.len() < 8 && y.len() < 8 {
        // The tails as zero-padded words: a shorter tail that is a prefix of the longer
        // pads to at most the longer's word, so equal words leave the lengths to decide.
        return padded(x).cmp(&padded(y)).then(x.len().cmp(&y.len()));
    }
    x.cmp(y)
}

/// Up to eight bytes as a big-endian word, zeros after them.
#[inline]
fn padded(bytes: &[u8]) -> u64 {
    bytes.iter().take(8).enumerate().fold(0u64, |word, (i, &b)| word | u64::from(b) << (56 - 8 * i))
}

#[cfg(test)]
mod tests {
    use super::compare;
    use proptest::prelude::*;

    #[test]
    fn orders_as_bytes_do() {
        let keys: [&[u8]; 9] = [
            b"",
            b"a",
            b"a\x00",
            b"abcdefgh",
            b"abcdefgh\x00",
            b"abcdefgi",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
            b"row-0000000000000000000000000000000000000001",
            b"row-0000000000000000000000000000000000000002",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(compare(a, b), a.cmp(b), "{a:?} against {b:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn any_two_keys_order_as_their_bytes(
            common in proptest::collection::vec(any::<u8>(), 0..40),
            a in proptest::collection::vec(any::<u8>(), 0..12),
            b in proptest::collection::vec(any::<u8>(), 0..12),
        ) {
            let a = [common.clone(), a].concat();
            let b = [common, b].concat();
            prop_assert_eq!(compare(&a, &b), a.cmp(&b));
        }
    }
}
