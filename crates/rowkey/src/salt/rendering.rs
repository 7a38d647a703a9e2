//! How a bucket number is written at the start of a key: [`SaltRendering`].

/// How a bucket number is written at the start of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaltRendering {
    /// `width` raw bytes (1..=8), big-endian (1 = one raw byte, like Phoenix; OpenTSDB's
    /// salt width, with its own layout over 4 bytes, see
    /// [`SaltStrategy::OpenTsdb`](super::SaltStrategy::OpenTsdb)).
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
            SaltRendering::Decimal(w) => crate::digits::push_decimal(out, u64::from(bucket), usize::from(w)),
            SaltRendering::Hex(w) => crate::digits::push_hex(out, u64::from(bucket), usize::from(w)),
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
