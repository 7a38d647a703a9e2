//! Pre-split keys: per salt bucket, bucket x k, and HBase `RegionSplitter`-like
//! algorithms (`HexStringSplit`, `DecimalStringSplit`, `UniformSplit`).

use bytes::Bytes;

use crate::salt::{decimal_digits, SaltRendering};
use crate::schema::Schema;

/// `N - 1` split keys putting each salt bucket in its own region: every bucket's
/// prefix in byte order, but the smallest. Works for every rendering (raw bytes,
/// zero-padded decimal with separator, hex, and the extra buckets of negative Java
/// results or Socorro's upper-case ids, whose prefixes sort elsewhere). Empty for
/// unsalted schemas.
pub fn bucket_split_keys(schema: &Schema) -> Vec<Bytes> {
    let mut keys = match schema.bucket_count() {
        None => return Vec::new(),
        Some(n) => (0..n).map(|b| schema.salt_prefix(b)).collect::<Vec<_>>(),
    };
    keys.sort();
    keys.dedup();
    keys.remove(0);
    keys
}

/// Split keys for `buckets` buckets in a rendering, without a schema (no separator).
pub fn rendering_split_keys(rendering: SaltRendering, buckets: u32) -> Vec<Bytes> {
    (1..buckets)
        .map(|b| {
            let mut v = Vec::new();
            rendering.render(b, &mut v);
            Bytes::from(v)
        })
        .collect()
}

/// The salted call records' `getSplitKeys(regionCount)`: `regions - 1` keys `i` zero-padded to the
/// width of `regions - 2`, followed by `|` (`0|`, `1|`, ...). Because `|` sorts after
/// `_`, region `i` holds keys with salt `i_` (bucket `regions - 1` goes to the last).
pub fn call_record_split_keys(regions: u32) -> Vec<Bytes> {
    let w = usize::from(decimal_digits(u64::from(regions.saturating_sub(2))));
    (0..regions.saturating_sub(1)).map(|i| Bytes::from(format!("{i:0w$}|"))).collect()
}

/// `buckets x k` regions: each bucket is cut into `k` parts by the first byte after the
/// salt prefix (`j * 256 / k`), suited to keys whose next byte is spread evenly.
/// Returns `N * k - 1` sorted keys.
pub fn bucket_sub_split_keys(schema: &Schema, k: u32) -> Vec<Bytes> {
    // One byte cuts at most 256 ways: a larger `k` (a user's flag) adds no distinct key.
    let k = k.min(256);
    let inner: Vec<Vec<u8>> = (1..k.max(1)).map(|j| vec![(u64::from(j) * 256 / u64::from(k)) as u8]).collect();
    salted_split_keys(schema, &inner)
}

/// Salt-aware splits from caller-chosen inner split points (e.g. a business prefix):
/// for each bucket its prefix (except bucket 0) and `prefix + inner[j]` for every `j`.
pub fn salted_split_keys(schema: &Schema, inner: &[Vec<u8>]) -> Vec<Bytes> {
    let mut out = Vec::new();
    for (i, p) in schema.salt_prefixes().into_iter().enumerate() {
        if i > 0 {
            out.push(p.clone());
        }
        for s in inner {
            let mut k = p.to_vec();
            k.extend_from_slice(s);
            out.push(Bytes::from(k));
        }
    }
    out.sort();
    out.dedup();
    out.retain(|k| !k.is_empty());
    out
}

/// Splits `[first, last]` into `n` equal parts like HBase's `RegionSplitter`:
/// `first + (last - first + 1) / n * i` for `i` in `1..n`.
fn even_points(first: u128, last: u128, n: u32) -> Vec<u128> {
    if n < 2 || last < first {
        return Vec::new();
    }
    let size = (last - first + 1) / u128::from(n);
    (1..n).map(|i| first + size * u128::from(i)).collect()
}

/// HBase `HexStringSplit`: `n - 1` 8-character lower-case hex keys over
/// `00000000..ffffffff` (`n = 4` gives `40000000`, `80000000`, `c0000000`).
pub fn hex_string_split(n: u32) -> Vec<Bytes> {
    even_points(0, 0xFFFF_FFFF, n).into_iter().map(|p| Bytes::from(format!("{p:08x}"))).collect()
}

/// HBase `DecimalStringSplit`: `n - 1` 8-digit keys over `00000000..99999999`.
pub fn decimal_string_split(n: u32) -> Vec<Bytes> {
    even_points(0, 99_999_999, n).into_iter().map(|p| Bytes::from(format!("{p:08}"))).collect()
}

/// Like HBase `UniformSplit`: `n - 1` 8-byte keys splitting the byte space evenly
/// (`n = 4` gives `40 00.., 80 00.., c0 00..`).
pub fn uniform_split(n: u32) -> Vec<Bytes> {
    even_points(0, u128::from(u64::MAX), n)
        .into_iter()
        .map(|p| Bytes::copy_from_slice(&(p as u64).to_be_bytes()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hbase_like_splits() {
        let h = hex_string_split(4);
        assert_eq!(h, vec!["40000000", "80000000", "c0000000"]);
        assert_eq!(decimal_string_split(4), vec!["25000000", "50000000", "75000000"]);
        let u = uniform_split(2);
        assert_eq!(u[0].as_ref(), &[0x80, 0, 0, 0, 0, 0, 0, 0]);
        assert!(hex_string_split(1).is_empty());
    }

    #[test]
    fn call_record() {
        let k = call_record_split_keys(6);
        assert_eq!(k, vec!["0|", "1|", "2|", "3|", "4|"]);
        let k = call_record_split_keys(12);
        assert_eq!(k.first().map(|b| b.as_ref()), Some(&b"00|"[..]));
        assert_eq!(k.len(), 11);
    }
}
