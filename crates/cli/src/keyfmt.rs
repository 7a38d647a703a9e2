//! Binary-safe text forms of row keys and values: `0x` hex and `\xNN` escapes (HBase's
//! `Bytes.toStringBinary` style), plus small parsers shared by the commands.

use std::time::Duration;

use crate::error::CliError;

/// Characters printed as themselves in the escaped form (as in HBase's `toStringBinary`).
fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b" `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?".contains(&b)
}

/// The escaped form: printable ASCII as is, every other byte (and `\`) as `\xNN`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    push_escaped(&mut out, bytes);
    out
}

/// Appends [`escape`]`(bytes)` to `out` (no allocation of its own).
pub fn push_escaped(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        if is_plain(b) {
            out.push(char::from(b));
        } else {
            out.push_str("\\x");
            out.push(char::from(DIGITS[usize::from(b >> 4)]));
            out.push(char::from(DIGITS[usize::from(b & 15)]));
        }
    }
}

/// The hex form with its `0x` prefix (lower case).
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 + 2 * bytes.len());
    push_hex(&mut out, bytes);
    out
}

/// Appends [`hex`]`(bytes)` to `out` (no allocation of its own).
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.push_str("0x");
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

/// Parses hex digits (no prefix, even length).
pub fn parse_hex_digits(text: &str) -> Result<Vec<u8>, CliError> {
    if text.len() % 2 != 0 {
        return Err(CliError::usage(format!("hex {text:?} has an odd number of digits")));
    }
    let digit = |c: u8| -> Result<u8, CliError> {
        char::from(c)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| CliError::usage(format!("{:?} is not a hex digit in {text:?}", char::from(c))))
    };
    text.as_bytes()
        .chunks_exact(2)
        .map(|p| Ok(digit(p.first().copied().unwrap_or(b'z'))? << 4 | digit(p.get(1).copied().unwrap_or(b'z'))?))
        .collect()
}

/// Parses the escaped form: `\xNN` is a byte, `\\` a backslash, everything else its
/// UTF-8 bytes.
pub fn unescape(text: &str) -> Result<Vec<u8>, CliError> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            Some(b'x') | Some(b'X') if i + 4 <= b.len() => {
                let pair = std::str::from_utf8(&b[i + 2..i + 4]).unwrap_or("zz");
                out.extend(parse_hex_digits(pair).map_err(|_| bad_escape(text))?);
                i += 4;
            }
            _ => return Err(bad_escape(text)),
        }
    }
    Ok(out)
}

fn bad_escape(text: &str) -> CliError {
    CliError::usage(format!("bad escape in {text:?}: use \\xNN for a byte or \\\\ for a backslash"))
}

/// Parses a key or value given on the command line: `0x...` is hex, else the escaped
/// form; with `force_hex` the text is hex with or without the `0x`.
pub fn parse_bytes(text: &str, force_hex: bool) -> Result<Vec<u8>, CliError> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(h) => parse_hex_digits(h),
        None if force_hex => parse_hex_digits(text),
        None => unescape(text),
    }
}

/// Renders bytes for output: hex when asked, else the escaped form.
pub fn show(bytes: &[u8], as_hex: bool) -> String {
    let mut out = String::new();
    push_shown(&mut out, bytes, as_hex);
    out
}

/// Appends [`show`]`(bytes, as_hex)` to `out` (no allocation of its own).
pub fn push_shown(out: &mut String, bytes: &[u8], as_hex: bool) {
    if as_hex {
        push_hex(out, bytes)
    } else {
        push_escaped(out, bytes)
    }
}

/// Parses `family:qualifier` (qualifier may be empty) or just `family`.
pub fn parse_column(text: &str) -> Result<(Vec<u8>, Option<Vec<u8>>), CliError> {
    let (f, q) = match text.split_once(':') {
        Some((f, q)) => (f, Some(q)),
        None => (text, None),
    };
    if f.is_empty() {
        return Err(CliError::usage(format!("column {text:?} has no family (use family:qualifier)")));
    }
    Ok((unescape(f)?, q.map(unescape).transpose()?))
}

/// Parses a duration: `500ms`, `5s`, `2m`, or a plain number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (num, scale_ms) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (t, 1000.0)
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("{text:?} is not a duration (e.g. 500ms, 5s, 2m)"))?;
    if !v.is_finite() || v <= 0.0 || v * scale_ms > 86_400_000.0 {
        return Err(format!("{text:?} must be a positive duration up to a day"));
    }
    Ok(Duration::from_micros((v * scale_ms * 1000.0) as u64))
}

/// Formats a count with thousands separators (`200,000`).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_round_trips() {
        let raw = b"2_138\x00\xff\\ab|";
        let e = escape(raw);
        assert_eq!(e, "2_138\\x00\\xFF\\x5Cab|");
        assert_eq!(unescape(&e).unwrap(), raw.to_vec());
        assert_eq!(unescape("a\\\\b").unwrap(), b"a\\b".to_vec());
        assert_eq!(parse_bytes(&hex(raw), false).unwrap(), raw.to_vec());
        assert_eq!(parse_bytes("00ff", true).unwrap(), vec![0, 255]);
        assert_eq!(parse_bytes("plain", false).unwrap(), b"plain".to_vec());
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(unescape("a\\").is_err());
        assert!(unescape("a\\x4").is_err());
        assert!(unescape("a\\xzz").is_err());
        assert!(unescape("\\q").is_err());
        assert!(parse_bytes("0x123", false).is_err());
        assert!(parse_bytes("0xgg", false).is_err());
        assert!(parse_bytes("é", true).is_err());
        assert!(unescape("\\xé1").is_err());
        assert!(parse_column(":q").is_err());
    }

    #[test]
    fn columns_and_durations() {
        assert_eq!(parse_column("d:dur").unwrap(), (b"d".to_vec(), Some(b"dur".to_vec())));
        assert_eq!(parse_column("d").unwrap(), (b"d".to_vec(), None));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("soon").is_err());
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(12), "12");
    }
}
