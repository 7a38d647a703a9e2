//! Numbers as key bytes: zero-padded decimal and hexadecimal digits written straight
//! into the key, with no formatted string in between (a key is built for every row
//! written, and formatting machinery cost more than the rest of the key).

/// How many decimal digits `n` has (one for zero).
pub(crate) fn decimal_len(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Appends `n` in decimal, zero-padded on the left to `width` digits; a number with
/// more digits is written whole (as `format!("{n:0width$}")` writes it).
pub(crate) fn push_decimal(out: &mut Vec<u8>, n: u64, width: usize) {
    push_radix(out, n, width, 10);
}

/// Appends `n` in lowercase hexadecimal, zero-padded on the left to `width` digits
/// (as `format!("{n:0width$x}")` writes it).
pub(crate) fn push_hex(out: &mut Vec<u8>, n: u64, width: usize) {
    push_radix(out, n, width, 16);
}

/// Appends `n` in decimal with a leading `-` when negative (as `n.to_string()`).
pub(crate) fn push_signed(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_decimal(out, n.unsigned_abs(), 0);
}

fn push_radix(out: &mut Vec<u8>, mut n: u64, width: usize, radix: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // u64::MAX has 20 decimal digits, 16 hexadecimal ones.
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = DIGITS[(n % radix) as usize];
        n /= radix;
        if n == 0 {
            break;
        }
    }
    let written = &digits[start..];
    out.resize(out.len() + width.saturating_sub(written.len()), b'0');
    out.extend_from_slice(written);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_what_format_writes() {
        let mut numbers =
            vec![0, 1, 9, 10, 99, 100, 255, 256, 4095, 4096, 65535, u64::from(u32::MAX), u64::MAX - 1, u64::MAX];
        numbers.extend((0..64).map(|shift| 1u64 << shift));
        numbers.extend((1..20).map(|p| 10u64.pow(p)));
        numbers.extend((1..20).map(|p| 10u64.pow(p) - 1));
        for &n in &numbers {
            assert_eq!(decimal_len(n), n.to_string().len(), "{n}");
            for width in [0, 1, 2, 3, 5, 8, 16, 20, 24] {
                let mut out = b"key".to_vec();
                push_decimal(&mut out, n, width);
                assert_eq!(out, format!("key{n:0width$}").into_bytes());
                let mut out = Vec::new();
                push_hex(&mut out, n, width);
                assert_eq!(out, format!("{n:0width$x}").into_bytes());
            }
        }
        for n in [0i64, 1, -1, 42, -42, i64::MIN, i64::MAX, i64::MIN + 1] {
            let mut out = Vec::new();
            push_signed(&mut out, n);
            assert_eq!(out, n.to_string().into_bytes());
        }
    }
}
