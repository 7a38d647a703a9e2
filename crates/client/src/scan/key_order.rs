//! Row keys compared as HBase orders them (unsigned bytes, a prefix first), eight bytes
//! at a time: a page's check compares each row's key with its neighbour and the range's
//! ends, and the library `memcmp` it called for each cost more per row than the rest of
//! the check.

use std::cmp::Ordering;

/// Words compared before the rest goes to the slices' own comparison.
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
    x.cmp(y)
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
