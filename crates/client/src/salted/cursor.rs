//! Salted-scan cursors: where a merged scan stopped, authenticated and bounded.
//!
//! A [`SaltedCursor`] holds each planned range's last returned key, the query's
//! fingerprint and an HMAC-SHA256 tag made with a [`CursorKey`] over the token version,
//! the query (table, direction and every planned range) and the positions. Cursors often
//! travel through web clients, so [`SaltedScan::resume`](super::SaltedScan::resume)
//! trusts nothing in one: the fingerprint must be this query's, the tag must verify under
//! this scan's key, and every position must lie inside its own planned range. Any
//! failure is an [`InvalidInput::Cursor`](crate::InvalidInput::Cursor) error naming a
//! [`CursorError`], and nothing is read.
//!
//! The token (`v2.<fingerprint>.<tag>.<position>...`, lower-case hex, `-` for a range
//! with no row returned yet) is parsed as bytes with every length checked, so any text
//! gives a typed error, never a panic.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use basalt_rowkey::ScanPlan;
use bytes::Bytes;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

pub use crate::error::CursorError;
use crate::error::{Error, InvalidInput, Result};

type HmacSha256 = Hmac<Sha256>;

/// The token version this library writes and reads.
const VERSION: &[u8] = b"v2";
/// HBase's limit on a row key, so on one position.
const MAX_KEY_LEN: usize = 32_767;
/// Most positions a token may carry (one per planned range).
const MAX_CURSOR_RANGES: usize = 1 << 16;
/// Shortest secret [`CursorKey::new`] accepts.
const MIN_SECRET_LEN: usize = 16;

/// The secret that signs and checks salted-scan cursors (HMAC-SHA256).
///
/// With none configured, a scan uses [`CursorKey::process_default`]: random, made once
/// per process. Cursors then do not survive a restart and are not accepted by another
/// process; services that hand cursors to clients and run several processes (or
/// restart) configure the same secret everywhere with [`CursorKey::new`] (or keep one
/// in a file with [`CursorKey::load_or_create`]) and
/// [`SaltedTable::cursor_key`](super::SaltedTable::cursor_key) or
/// [`SaltedScan::cursor_key`](super::SaltedScan::cursor_key).
#[derive(Clone)]
pub struct CursorKey {
    mac: HmacSha256,
}

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

impl CursorKey {
    /// A key from a secret of at least 16 bytes (32 random bytes recommended).
    pub fn new(secret: &[u8]) -> Result<CursorKey> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(InvalidInput::Option(format!(
                "a cursor key needs at least {MIN_SECRET_LEN} bytes of secret, got {}",
                secret.len()
            ))
            .into());
        }
        let mac = HmacSha256::new_from_slice(secret)
            .map_err(|_| InvalidInput::Option("cursor key rejected by HMAC".into()))?;
        Ok(CursorKey { mac })
    }

    /// A fresh key of 32 bytes from the operating system's random source.
    pub fn random() -> Result<CursorKey> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|e| InvalidInput::Option(format!("no random source for a cursor key: {e}")))?;
        CursorKey::new(&secret)
    }

    /// The key kept in the file at `path`, created there first (32 random bytes as hex,
    /// readable by its owner only on Unix) if the file does not exist: a key that
    /// survives restarts of the processes that share the file, e.g. a command-line
    /// tool's resumable exports. Two processes creating it at once agree on one key.
    pub fn load_or_create(path: impl AsRef<Path>) -> Result<CursorKey> {
        let path = path.as_ref();
        let fail = |reason: String| Error::from(CursorError::KeyFile { path: path.display().to_string(), reason });
        match std::fs::read(path) {
            Ok(text) => return CursorKey::from_key_file(&text).map_err(|why| fail(why.to_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(e.to_string())),
        }
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| fail(format!("no random source: {e}")))?;
        let mut text = String::with_capacity(65);
        push_hex(&mut text, &secret);
        text.push('\n');
        // Written whole to a private temporary file, then linked into place: the link
        // fails if another process got there first, and then its key is the one.
        let nonce = getrandom::u64().map_err(|e| fail(format!("no random source: {e}")))?;
        let temp = path.with_extension(format!("tmp-{}-{nonce:016x}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options.open(&temp).and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::hard_link(&temp, path)
        });
        let _ = std::fs::remove_file(&temp);
        match written {
            Ok(()) => CursorKey::new(&secret),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
                CursorKey::from_key_file(&text).map_err(|why| fail(why.to_owned()))
            }
            Err(e) => Err(fail(e.to_string())),
        }
    }

    /// Parses a key file: hex digits (at least 32, an even number), surrounding
    /// whitespace allowed.
    fn from_key_file(text: &[u8]) -> std::result::Result<CursorKey, &'static str> {
        let text = text.trim_ascii();
        if text.len() < 2 * MIN_SECRET_LEN || text.len() > 1024 || text.len() % 2 != 0 {
            return Err("expected 32 to 1024 hex digits (an even number)");
        }
        let mut secret = vec![0u8; text.len() / 2];
        decode_hex(text, &mut secret).ok_or("not lower-case hex")?;
        CursorKey::new(&secret).map_err(|_| "the secret is too short")
    }

    /// The key scans use when none is configured: random, made on first use, the same
    /// for the whole process (so cursors are refused after a restart).
    pub fn process_default() -> Result<CursorKey> {
        static DEFAULT: OnceLock<CursorKey> = OnceLock::new();
        if let Some(key) = DEFAULT.get() {
            return Ok(key.clone());
        }
        let key = CursorKey::random()?;
        Ok(DEFAULT.get_or_init(|| key).clone())
    }

    fn tag(&self, query: &QueryDigest, positions: &[Option<Bytes>]) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(b"basalt salted-scan cursor\0");
        mac.update(VERSION);
        mac.update(&query.0);
        mac.update(&(positions.len() as u64).to_be_bytes());
        for position in positions {
            match position {
                None => mac.update(&[0]),
                Some(key) => {
                    mac.update(&[1]);
                    mac.update(&(key.len() as u64).to_be_bytes());
                    mac.update(key);
                }
            }
        }
        mac
    }
}

/// SHA-256 of what identifies a query: the table, the direction and every planned
/// range. Its first 8 bytes are the fingerprint shown in tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QueryDigest([u8; 32]);

impl QueryDigest {
    pub(crate) fn of(table: &str, plan: &ScanPlan) -> QueryDigest {
        let mut hash = Sha256::new();
        let mut field = |bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_be_bytes());
            hash.update(bytes);
        };
        field(b"basalt salted-scan query");
        field(table.as_bytes());
        field(&[u8::from(plan.reverse)]);
        field(&(plan.ranges.len() as u64).to_be_bytes());
        for range in &plan.ranges {
            field(&range.start);
            field(&range.stop);
        }
        QueryDigest(hash.finalize().into())
    }

    pub(crate) fn fingerprint(&self) -> u64 {
        let [a, b, c, d, e, f, g, h, ..] = self.0;
        u64::from_be_bytes([a, b, c, d, e, f, g, h])
    }
}

/// Where a salted scan stopped: each planned range's last returned key, signed. Get one
/// from [`SaltedStream::cursor`](super::SaltedStream::cursor), carry it as text with
/// [`SaltedCursor::to_token`] / [`SaltedCursor::from_token`], and continue with
/// [`SaltedScan::resume`](super::SaltedScan::resume), which verifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaltedCursor {
    fingerprint: u64,
    last: Vec<Option<Bytes>>,
    tag: [u8; 32],
}

impl SaltedCursor {
    /// A cursor at `last` for the query `query`, signed with `key`.
    pub(crate) fn issue(key: &CursorKey, query: &QueryDigest, last: Vec<Option<Bytes>>) -> SaltedCursor {
        let tag = key.tag(query, &last).finalize().into_bytes().into();
        SaltedCursor { fingerprint: query.fingerprint(), last, tag }
    }

    /// The positions this cursor claims, once it is proven to be `query`'s, signed with
    /// `key`, and inside `plan`'s ranges.
    pub(crate) fn verify(&self, key: &CursorKey, query: &QueryDigest, plan: &ScanPlan) -> Result<&[Option<Bytes>]> {
        if self.fingerprint != query.fingerprint() || self.last.len() != plan.ranges.len() {
            return Err(CursorError::OtherQuery.into());
        }
        key.tag(query, &self.last).verify_slice(&self.tag).map_err(|_| CursorError::Signature)?;
        for (range, (position, planned)) in self.last.iter().zip(&plan.ranges).enumerate() {
            let Some(position) = position else { continue };
            let above_start = position[..] >= planned.start[..];
            let below_stop = planned.stop.is_empty() || position[..] < planned.stop[..];
            if position.is_empty() || !above_start || !below_stop {
                return Err(CursorError::OutOfRange { range }.into());
            }
        }
        Ok(&self.last)
    }

    /// The 64-bit fingerprint of the query this cursor belongs to.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The text form `v2.<fingerprint>.<tag>.<position>...` (lower-case hex; `-` for a
    /// range with no row returned yet).
    pub fn to_token(&self) -> String {
        let keys: usize = self.last.iter().map(|k| k.as_ref().map_or(1, |k| 2 * k.len()) + 1).sum();
        let mut out = String::with_capacity(3 + 17 + 65 + keys);
        out.push_str("v2.");
        push_hex(&mut out, &self.fingerprint.to_be_bytes());
        out.push('.');
        push_hex(&mut out, &self.tag);
        for key in &self.last {
            out.push('.');
            match key {
                Some(k) => push_hex(&mut out, k),
                None => out.push('-'),
            }
        }
        out
    }

    /// Parses [`SaltedCursor::to_token`]'s form. Any text gives a cursor or a typed
    /// error; the signature and the ranges are checked when the scan resumes. Bounds:
    /// at most 65,536 positions, each at most 32,767 bytes (HBase's key limit).
    pub fn from_token(token: &str) -> Result<SaltedCursor> {
        let mut parts = token.as_bytes().split(|&b| b == b'.');
        let version = parts.next().unwrap_or_default();
        if version != VERSION {
            let looks_versioned = version.len() >= 2
                && version.len() <= 16
                && version.first() == Some(&b'v')
                && version.iter().skip(1).all(u8::is_ascii_digit);
            if looks_versioned {
                return Err(CursorError::Version { found: String::from_utf8_lossy(version).into_owned() }.into());
            }
            return Err(CursorError::Malformed("not a salted-scan cursor token").into());
        }
        let mut fingerprint = [0u8; 8];
        decode_hex_exact(parts.next(), &mut fingerprint, "the fingerprint must be 16 hex digits")?;
        let mut tag = [0u8; 32];
        decode_hex_exact(parts.next(), &mut tag, "the signature must be 64 hex digits")?;
        let mut last = Vec::new();
        for part in parts {
            if last.len() == MAX_CURSOR_RANGES {
                return Err(CursorError::Malformed("too many positions").into());
            }
            if part == b"-" {
                last.push(None);
                continue;
            }
            if part.len() % 2 != 0 {
                return Err(CursorError::Malformed("odd number of hex digits in a position").into());
            }
            if part.len() / 2 > MAX_KEY_LEN {
                return Err(CursorError::Malformed("a position is longer than HBase's row key limit").into());
            }
            let mut key = vec![0u8; part.len() / 2];
            decode_hex(part, &mut key).ok_or(CursorError::Malformed("bad hex digit in a position"))?;
            last.push(Some(Bytes::from(key)));
        }
        Ok(SaltedCursor { fingerprint: u64::from_be_bytes(fingerprint), last, tag })
    }
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Decodes lower-case hex `text` into `out`; `None` on a bad digit or if `text` is not
/// exactly twice `out`'s length.
fn decode_hex(text: &[u8], out: &mut [u8]) -> Option<()> {
    if text.len() != 2 * out.len() {
        return None;
    }
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        let [high, low] = pair else { return None };
        *byte = (nibble(*high)? << 4) | nibble(*low)?;
    }
    Some(())
}

fn decode_hex_exact(part: Option<&[u8]>, out: &mut [u8], why: &'static str) -> Result<()> {
    let part = part.ok_or(CursorError::Malformed(why))?;
    decode_hex(part, out).ok_or(CursorError::Malformed(why))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_rowkey::ScanRange;
    use proptest::prelude::*;

    fn three_ranges(reverse: bool) -> ScanPlan {
        let range = |b: u8| ScanRange {
            bucket: Some(u32::from(b)),
            start: Bytes::from(vec![b, b'k']),
            stop: Bytes::from(vec![b, b'q']),
            start_may_be_row: false,
            stop_may_be_row: false,
        };
        ScanPlan { ranges: vec![range(0), range(1), range(2)], reverse, targeted: false }
    }

    fn key() -> CursorKey {
        CursorKey::new(b"0123456789abcdef0123456789abcdef").unwrap()
    }

    fn positions() -> Vec<Option<Bytes>> {
        vec![Some(Bytes::from_static(b"\x00km")), None, Some(Bytes::from_static(b"\x02p\xff"))]
    }

    fn refused(cursor: &SaltedCursor, key: &CursorKey, query: &QueryDigest, plan: &ScanPlan) -> CursorError {
        match cursor.verify(key, query, plan) {
            Err(Error::InvalidInput(InvalidInput::Cursor(e))) => e,
            other => panic!("expected a cursor error, got {other:?}"),
        }
    }

    #[test]
    fn a_token_round_trips_and_verifies() {
        let plan = three_ranges(false);
        let query = QueryDigest::of("t", &plan);
        let cursor = SaltedCursor::issue(&key(), &query, positions());
        let token = cursor.to_token();
        assert!(token.starts_with("v2."));
        let parsed = SaltedCursor::from_token(&token).unwrap();
        assert_eq!(parsed, cursor);
        assert_eq!(parsed.verify(&key(), &query, &plan).unwrap(), &positions()[..]);
    }

    #[test]
    fn tampering_is_refused() {
        let plan = three_ranges(false);
        let query = QueryDigest::of("t", &plan);
        let token = SaltedCursor::issue(&key(), &query, positions()).to_token();
        // Every single hex digit flipped, anywhere in the token.
        for (i, c) in token.char_indices() {
            let flipped = match c {
                '0' => '1',
                'a'..='f' | '1'..='9' => '0',
                _ => continue,
            };
            let mut edited = token.clone();
            edited.replace_range(i..i + 1, &flipped.to_string());
            if let Ok(cursor) = SaltedCursor::from_token(&edited) {
                let e = refused(&cursor, &key(), &query, &plan);
                assert!(matches!(e, CursorError::Signature | CursorError::OtherQuery), "{edited}: {e}");
            }
        }
        // Truncated anywhere: unparsable, or fewer positions, or a shorter key.
        for end in 0..token.len() {
            if let Ok(cursor) = SaltedCursor::from_token(&token[..end]) {
                assert!(cursor.verify(&key(), &query, &plan).is_err(), "truncated at {end}");
            }
        }
        // Another key.
        let other = CursorKey::new(b"another secret of enough length").unwrap();
        let cursor = SaltedCursor::from_token(&token).unwrap();
        assert_eq!(refused(&cursor, &other, &query, &plan), CursorError::Signature);
        // Another query (direction) and another table.
        let reversed = three_ranges(true);
        assert_eq!(refused(&cursor, &key(), &QueryDigest::of("t", &reversed), &reversed), CursorError::OtherQuery);
        assert_eq!(refused(&cursor, &key(), &QueryDigest::of("u", &plan), &plan), CursorError::OtherQuery);
    }

    #[test]
    fn positions_outside_their_range_are_refused_even_when_signed() {
        let plan = three_ranges(false);
        let query = QueryDigest::of("t", &plan);
        // Signed with the right key (a leaked key, or a bug): the range check still holds.
        for (range, bad) in [
            (0, &b"\x00a"[..]),     // below range 0
            (0, &b"\x00q"[..]),     // at its exclusive stop
            (0, &b"\x01m"[..]),     // inside another bucket
            (2, &b""[..]),          // empty
            (2, &b"\x02j\xff"[..]), // just below the start
        ] {
            let mut last = positions();
            last[range] = Some(Bytes::copy_from_slice(bad));
            let cursor = SaltedCursor::issue(&key(), &query, last);
            assert_eq!(refused(&cursor, &key(), &query, &plan), CursorError::OutOfRange { range });
        }
        let mut last = positions();
        last[1] = Some(Bytes::from_static(b"\x01k"));
        assert!(SaltedCursor::issue(&key(), &query, last).verify(&key(), &query, &plan).is_ok(), "start is inclusive");
    }

    #[test]
    fn hostile_text_gives_typed_errors() {
        let plan = three_ranges(false);
        let token = SaltedCursor::issue(&key(), &QueryDigest::of("t", &plan), positions()).to_token();
        let too_long = format!("{}.{}", token, "ab".repeat(MAX_KEY_LEN + 1));
        let too_many = format!("{}{}", token, ".-".repeat(MAX_CURSOR_RANGES));
        for bad in [
            "",
            "v1.0000000000000001.abcd",
            "v3",
            "vé.",
            "é",
            "v2",
            "v2.zz",
            "v2.00000000000000é0",
            "v2.0000000000000001.é",
            &token.replace("v2.", "V2."),
            &format!("{token}.abc"),
            &format!("{token}.0g"),
            &format!("{token}.é0"),
            &format!("{token}.AB"),
            &too_long,
            &too_many,
        ] {
            match SaltedCursor::from_token(bad) {
                Err(Error::InvalidInput(InvalidInput::Cursor(_))) => {}
                other => panic!("{:?}: {other:?}", bad.get(..40)),
            }
        }
        assert!(matches!(
            SaltedCursor::from_token("v1.000000000000002a.00"),
            Err(Error::InvalidInput(InvalidInput::Cursor(CursorError::Version { .. })))
        ));
    }

    #[test]
    fn keys_are_checked_and_the_default_is_stable() {
        assert!(CursorKey::new(b"short").is_err());
        let a = CursorKey::process_default().unwrap();
        let b = CursorKey::process_default().unwrap();
        let plan = three_ranges(false);
        let query = QueryDigest::of("t", &plan);
        let cursor = SaltedCursor::issue(&a, &query, positions());
        assert!(cursor.verify(&b, &query, &plan).is_ok());
        assert!(cursor.verify(&CursorKey::random().unwrap(), &query, &plan).is_err());
        assert_eq!(format!("{a:?}"), "CursorKey(..)");
    }

    #[test]
    fn a_key_file_is_created_once_and_read_back() {
        let dir = std::env::temp_dir().join(format!("basalt-cursor-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cursor.key");
        let _ = std::fs::remove_file(&path);
        let created = CursorKey::load_or_create(&path).unwrap();
        let loaded = CursorKey::load_or_create(&path).unwrap();
        let plan = three_ranges(false);
        let query = QueryDigest::of("t", &plan);
        let cursor = SaltedCursor::issue(&created, &query, positions());
        assert!(cursor.verify(&loaded, &query, &plan).is_ok(), "the same key after a restart");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(&path, "not a key\n").unwrap();
        assert!(matches!(
            CursorKey::load_or_create(&path),
            Err(Error::InvalidInput(InvalidInput::Cursor(CursorError::KeyFile { .. })))
        ));
        std::fs::write(&path, "0123456789abcdef0123456789abcdef\n").unwrap();
        assert!(CursorKey::load_or_create(&path).is_ok(), "a hand-made key of 16 bytes");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest! {
        #[test]
        fn from_token_never_panics(text in ".{0,200}") {
            let _ = SaltedCursor::from_token(&text);
        }

        #[test]
        fn from_token_never_panics_on_token_like_text(text in "v2\\.[0-9a-f.\\-é]{0,120}") {
            let _ = SaltedCursor::from_token(&text);
        }

        #[test]
        fn any_cursor_round_trips(
            fingerprint in any::<u64>(),
            tag in any::<[u8; 32]>(),
            last in proptest::collection::vec(proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)), 0..20),
        ) {
            let cursor = SaltedCursor { fingerprint, last: last.into_iter().map(|k| k.map(Bytes::from)).collect(), tag };
            prop_assert_eq!(SaltedCursor::from_token(&cursor.to_token()).unwrap(), cursor);
        }
    }
}
