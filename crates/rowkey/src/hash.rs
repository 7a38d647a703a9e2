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

/// Java `Long.hashCode(v)`: `(int) (v ^ (v >>> 32))`.
pub fn java_long_hash(v: i64) -> i32 {
    let u = v as u64;
    (u ^ (u >> 32)) as u32 as i32
}

/// The UTF-16 units of Java's `new String(bytes, StandardCharsets.UTF_8)`, malformed
/// input included: Java replaces each malformed sequence by one U+FFFD using its own
/// rule (JDK 17 `String.decodeUTF8_UTF16`), which differs from Rust's
/// `String::from_utf8_lossy` (for example `ED A0 80`, an encoded surrogate, is one
/// U+FFFD in Java and three in Rust).
pub fn java_utf8_decode(src: &[u8]) -> Vec<u16> {
    const REPL: u16 = 0xFFFD;
    let cont = |b: u8| b & 0xC0 == 0x80;
    let mut out = Vec::with_capacity(src.len());
    let mut sp = 0;
    let sl = src.len();
    while sp < sl {
        let b1 = src[sp];
        sp += 1;
        match b1 {
            0x00..=0x7F => out.push(u16::from(b1)),
            0xC2..=0xDF => {
                if sp < sl {
                    let b2 = src[sp];
                    if cont(b2) {
                        sp += 1;
                        out.push((u16::from(b1 & 0x1F) << 6) | u16::from(b2 & 0x3F));
                    } else {
                        out.push(REPL);
                    }
                    continue;
                }
                out.push(REPL);
                break;
            }
            0xE0..=0xEF => {
                let bad_first = |b2: u8| (b1 == 0xE0 && b2 & 0xE0 == 0x80) || !cont(b2);
                if sp + 1 < sl {
                    let (b2, b3) = (src[sp], src[sp + 1]);
                    if bad_first(b2) || !cont(b3) {
                        out.push(REPL);
                        // Java skips 1 byte after the lead if the second is bad, else 2.
                        sp += if bad_first(b2) { 0 } else { 1 };
                    } else {
                        sp += 2;
                        let c = (u16::from(b1 & 0x0F) << 12) | (u16::from(b2 & 0x3F) << 6) | u16::from(b3 & 0x3F);
                        out.push(if (0xD800..=0xDFFF).contains(&c) { REPL } else { c });
                    }
                    continue;
                }
                if sp < sl && bad_first(src[sp]) {
                    out.push(REPL);
                    continue;
                }
                out.push(REPL);
                break;
            }
            0xF0..=0xF7 => {
                let bad_second = |b2: u8| {
                    b1 > 0xF4
                        || (b1 == 0xF0 && !(0x90..=0xBF).contains(&b2))
                        || (b1 == 0xF4 && b2 & 0xF0 != 0x80)
                        || !cont(b2)
                };
                if sp + 2 < sl {
                    let (b2, b3, b4) = (src[sp], src[sp + 1], src[sp + 2]);
                    let uc = (u32::from(b1 & 0x07) << 18)
                        | (u32::from(b2 & 0x3F) << 12)
                        | (u32::from(b3 & 0x3F) << 6)
                        | u32::from(b4 & 0x3F);
                    if !cont(b2) || !cont(b3) || !cont(b4) || !(0x1_0000..0x11_0000).contains(&uc) {
                        out.push(REPL);
                        // Java's malformed4: 1, 2 or 3 bytes including the lead.
                        sp += if bad_second(b2) {
                            0
                        } else if !cont(b3) {
                            1
                        } else {
                            2
                        };
                    } else {
                        sp += 3;
                        let v = uc - 0x1_0000;
                        out.push(0xD800 | (v >> 10) as u16);
                        out.push(0xDC00 | (v & 0x3FF) as u16);
                    }
                    continue;
                }
                if b1 > 0xF4 || (sp < sl && bad_second(src[sp])) {
                    out.push(REPL);
                    continue;
                }
                sp += 1;
                out.push(REPL);
                if sp < sl && !cont(src[sp]) {
                    continue;
                }
                break;
            }
            _ => out.push(REPL),
        }
    }
    out
}

/// Java `new String(bytes, UTF_8).hashCode()`: [`java_utf8_decode`], then the 31-hash
/// over UTF-16 units. Equal to [`java_string_hash`] for valid UTF-8.
pub fn java_string_hash_utf8(bytes: &[u8]) -> i32 {
    java_utf8_decode(bytes).iter().fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// A Java hash function for [`crate::SaltStrategy::JavaHash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JavaHash {
    /// `new String(bytes, UTF_8).hashCode()` of the input bytes ([`java_string_hash_utf8`]).
    String,
    /// `Arrays.hashCode(byte[])` of the input bytes ([`java_bytes_hash`]).
    Bytes,
    /// `Long.hashCode(v)` of the input read as a decimal `long` ([`java_long_hash`]).
    Long,
}

/// How Java code found in the wild turns an `int` hash `h` into a bucket for `n` buckets.
/// Each form is reproduced exactly, including the negative results of two of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JavaBucketForm {
    /// `Math.abs(h % n)`: Phoenix `SaltingUtil`, OpenTSDB (`modulo * -1`). Never negative.
    AbsOfRem,
    /// `Math.abs(h) % n`: HBaseWD `OneByteSimpleHash`, the call-record salt. Negative, namely
    /// `Integer.MIN_VALUE % n`, when `h == Integer.MIN_VALUE` (and `n` is not a power of two).
    AbsThenRem,
    /// `(h & 0x7fffffff) % n`. Never negative.
    MaskThenRem,
    /// `Math.floorMod(h, n)`. Never negative.
    FloorMod,
    /// `(byte) (h % n)` (the HBase book's snippet): negative for every negative `h` whose remainder is not 0,
    /// and wrapped by the cast when `n > 128`.
    ByteOfRem,
}

impl JavaBucketForm {
    /// The Java result for hash `h` and `n` buckets (`1 <= n <= i32::MAX`).
    pub fn apply(self, h: i32, n: u32) -> i32 {
        let n = i32::try_from(n.max(1)).unwrap_or(i32::MAX);
        match self {
            JavaBucketForm::AbsOfRem => (h % n).wrapping_abs(),
            JavaBucketForm::AbsThenRem => h.wrapping_abs() % n,
            JavaBucketForm::MaskThenRem => (h & 0x7fff_ffff) % n,
            JavaBucketForm::FloorMod => h.rem_euclid(n),
            JavaBucketForm::ByteOfRem => i32::from((h % n) as i8),
        }
    }

    /// Every negative result the form can give for `n` buckets, in the order Basalt
    /// numbers them (after the buckets `0..n`).
    pub fn negative_results(self, n: u32) -> Vec<i32> {
        let n = i32::try_from(n.max(1)).unwrap_or(i32::MAX);
        match self {
            JavaBucketForm::AbsThenRem if i32::MIN % n != 0 => vec![i32::MIN % n],
            JavaBucketForm::ByteOfRem => (1..=(n - 1).min(128)).map(|k| -k).collect(),
            _ => Vec::new(),
        }
    }

    /// Name used in the schema text (`abs_of_rem`, `abs_then_rem`, `mask_then_rem`,
    /// `floor_mod`, `byte_of_rem`).
    pub fn name(self) -> &'static str {
        match self {
            JavaBucketForm::AbsOfRem => "abs_of_rem",
            JavaBucketForm::AbsThenRem => "abs_then_rem",
            JavaBucketForm::MaskThenRem => "mask_then_rem",
            JavaBucketForm::FloorMod => "floor_mod",
            JavaBucketForm::ByteOfRem => "byte_of_rem",
        }
    }

    /// The form of a name given by [`JavaBucketForm::name`].
    pub fn from_name(name: &str) -> Option<JavaBucketForm> {
        [
            JavaBucketForm::AbsOfRem,
            JavaBucketForm::AbsThenRem,
            JavaBucketForm::MaskThenRem,
            JavaBucketForm::FloorMod,
            JavaBucketForm::ByteOfRem,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }
}

/// A named hash function for [`crate::SaltStrategy::Hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashAlgo {
    /// First 4 digest bytes, big-endian, as u32; bucket = that % N.
    Md5,
    /// Java `new String(input, UTF_8).hashCode()` (Java's decoding of invalid UTF-8,
    /// [`java_string_hash_utf8`]); bucket = `Math.abs(h % N)`.
    JavaString,
    /// Java `Arrays.hashCode(byte[])`; bucket = `Math.abs(h % N)` (Phoenix, OpenTSDB).
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
            HashAlgo::JavaString => java_abs_mod(java_string_hash_utf8(data), n),
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
        assert_eq!(java_long_hash(0x8000_0000), i32::MIN);
        assert_eq!(java_utf8_decode(&[0xED, 0xA0, 0x80]), vec![0xFFFD]);
        assert_eq!(java_string_hash_utf8("淘宝".as_bytes()), java_string_hash("淘宝"));
        assert_eq!(JavaBucketForm::AbsThenRem.apply(i32::MIN, 10), -8);
        assert_eq!(JavaBucketForm::AbsThenRem.negative_results(10), vec![-8]);
        assert!(JavaBucketForm::AbsThenRem.negative_results(16).is_empty());
        assert_eq!(JavaBucketForm::ByteOfRem.apply(-3, 10), -3);
        assert_eq!(JavaBucketForm::ByteOfRem.apply(200, 256), -56);
        assert_eq!(JavaBucketForm::FloorMod.apply(-3, 10), 7);
        assert_eq!(JavaBucketForm::MaskThenRem.apply(i32::MIN, 10), 0);
    }

    #[test]
    fn crc_and_md5() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }
}
