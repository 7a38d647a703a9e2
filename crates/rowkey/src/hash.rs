//! Hash functions used by salts, each matching its published definition.

use md5::{Digest, Md5};

/// Java `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units,
/// wrapping `int` arithmetic.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Java `String.hashCode()` of bytes read as ISO-8859-1 text (each byte one UTF-16 unit);
/// equal to [`java_string_hash`] for ASCII.
pub fn java_latin1_hash(b: &[u8]) -> i32 {
    b.iter().fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Java `Arrays.hashCode(byte[])`: starts at 1, bytes are *signed*. Used by Phoenix
/// (`SaltingUtil`), OpenTSDB (`RowKey.prefixKeyWithSalt`) and HBaseWD (`OneByteSimpleHash`).
pub fn java_bytes_hash(b: &[u8]) -> i32 {
    b.iter().fold(1i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c as i8)))
}

/// MurmurHash3 x86_32 (Austin Appleby's reference algorithm).
pub fn murmur3_x86_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = chunks.remainder();
    let mut k = 0u32;
    for (i, &b) in tail.iter().enumerate() {
        k |= u32::from(b) << (8 * i);
    }
    if !tail.is_empty() {
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// CRC-32 (IEEE 802.3, as `java.util.zip.CRC32`).
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// MD5 digest.
pub fn md5(data: &[u8]) -> [u8; 16] {
    Md5::digest(data).into()
}

/// Lower-case hex of the MD5 digest.
pub fn md5_hex(data: &[u8]) -> String {
    md5(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// `Math.abs(h % n)` as Java computes it for `n > 0`; never negative (unlike
/// `Math.abs(h) % n`, which is negative for `h == Integer.MIN_VALUE`).
pub fn java_abs_mod(h: i32, n: u32) -> u32 {
    let n = i64::from(n.max(1));
    (i64::from(h) % n).unsigned_abs() as u32
}

/// A named hash function for [`crate::SaltStrategy::Hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashAlgo {
    /// First 4 digest bytes, big-endian, as u32; bucket = that % N.
    Md5,
    /// Java `String.hashCode` of the input read as UTF-8 text; bucket = `abs(h % N)`.
    JavaString,
    /// Java `Arrays.hashCode(byte[])`; bucket = `abs(h % N)` (Phoenix, OpenTSDB, HBaseWD).
    JavaBytes,
    /// CRC-32 as u32; bucket = crc % N.
    Crc32,
    /// MurmurHash3 x86_32 with a seed, as u32; bucket = h % N.
    Murmur3 {
        /// Seed.
        seed: u32,
    },
}

impl HashAlgo {
    /// Bucket in `[0, n)` of `data`.
    pub fn bucket(self, data: &[u8], n: u32) -> u32 {
        let n = n.max(1);
        match self {
            HashAlgo::Md5 => {
                let d = md5(data);
                u32::from_be_bytes([d[0], d[1], d[2], d[3]]) % n
            }
            HashAlgo::JavaString => java_abs_mod(java_string_hash(&String::from_utf8_lossy(data)), n),
            HashAlgo::JavaBytes => java_abs_mod(java_bytes_hash(data), n),
            HashAlgo::Crc32 => crc32(data) % n,
            HashAlgo::Murmur3 { seed } => murmur3_x86_32(data, seed) % n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_published_vectors() {
        assert_eq!(murmur3_x86_32(b"", 0), 0);
        assert_eq!(murmur3_x86_32(b"", 1), 0x514E_28B7);
        assert_eq!(murmur3_x86_32(b"", 0xffff_ffff), 0x81F1_6F39);
        assert_eq!(murmur3_x86_32(&[0, 0, 0, 0], 0), 0x2362_F9DE);
        assert_eq!(murmur3_x86_32(b"Hello, world!", 0x9747_b28c), 0x2488_4CBA);
        assert_eq!(murmur3_x86_32(b"aaaa", 0x9747_b28c), 0x5A97_808A);
        assert_eq!(murmur3_x86_32(b"a", 0x9747_b28c), 0x7FA0_9EA6);
        assert_eq!(murmur3_x86_32(b"The quick brown fox jumps over the lazy dog", 0x9747_b28c), 0x2FA8_26CD);
    }

    #[test]
    fn java_hashes() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash("Aa"), java_string_hash("BB"));
        assert_eq!(java_bytes_hash(b""), 1);
        assert_eq!(java_bytes_hash(&[0xFF]), 31 - 1);
        assert_eq!(java_abs_mod(i32::MIN, 10), 8);
        assert_eq!(java_abs_mod(-7, 10), 7);
    }

    #[test]
    fn crc_and_md5() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }
}
