//! Finding where a Thrift message ends in an unframed (buffered) byte stream.
//!
//! A buffered transport carries no length prefix: the only way to know that a reply
//! is complete is to walk its structure. [`MessageScanner`] does that walk
//! incrementally: it keeps its position and an explicit stack between calls, so
//! feeding it a response in chunks costs time linear in the response's size, and it
//! never allocates for the values it skips. Every length it reads is checked against
//! the configured maximum before the caller buffers that many bytes, so a hostile or
//! broken server cannot make the client allocate gigabytes.

use crate::wire::{varint, zigzag, WireError};
use crate::Protocol;

/// Deepest nesting of structs and containers accepted in a reply (HBase's are < 8).
const MAX_DEPTH: usize = 64;
/// Longest method name accepted in a reply header.
const MAX_NAME_LEN: usize = 1024;

/// Why a byte stream is not an acceptable Thrift message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// The message is, or declares itself to be, longer than the configured maximum.
    #[error("reply exceeds the maximum of {limit} bytes")]
    TooLarge {
        /// The configured maximum.
        limit: usize,
    },
    /// The bytes do not follow the protocol's grammar.
    #[error("malformed reply: {0}")]
    Malformed(&'static str),
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    /// Inside a struct; `last_id` is the previous field id (compact deltas need it).
    Struct { last_id: i16 },
    /// Inside a list or set with `remaining` elements of wire type `elem` to come.
    Seq { elem: u8, remaining: u32 },
    /// Inside a map with `remaining` keys and values (2 per entry) still to come.
    Map { key: u8, value: u8, remaining: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Header,
    Body,
    Done,
}

/// Incremental scanner over one Thrift message (binary or compact protocol).
#[derive(Debug)]
pub struct MessageScanner {
    protocol: Protocol,
    limit: usize,
    pos: usize,
    stage: Stage,
    stack: Vec<Frame>,
    /// The wire type of a value whose header has been consumed but whose bytes have not.
    pending: Option<u8>,
    /// Bytes of a string body still to skip.
    skip: usize,
}

enum Step {
    /// The item was consumed; this many bytes.
    Took(usize),
    /// The buffer ends inside the item.
    NeedMore,
}

impl MessageScanner {
    /// A scanner for one message of at most `limit` bytes.
    pub fn new(protocol: Protocol, limit: usize) -> Self {
        MessageScanner { protocol, limit, pos: 0, stage: Stage::Header, stack: Vec::new(), pending: None, skip: 0 }
    }

    /// Scans as far as `buf` allows. `buf` must start at the message's first byte and
    /// may only grow between calls. Returns the message's length once it is complete,
    /// `None` while more bytes are needed.
    pub fn advance(&mut self, buf: &[u8]) -> Result<Option<usize>, ScanError> {
        loop {
            if self.skip > 0 {
                let available = buf.len().saturating_sub(self.pos);
                let step = available.min(self.skip);
                self.pos += step;
                self.skip -= step;
                if self.skip > 0 {
                    return Ok(None);
                }
            }
            match self.stage {
                Stage::Done => return Ok(Some(self.pos)),
                Stage::Header => match self.header(&buf[self.pos..])? {
                    Step::NeedMore => return Ok(None),
                    Step::Took(n) => {
                        self.take(n)?;
                        self.stage = Stage::Body;
                        self.stack.push(Frame::Struct { last_id: 0 });
                    }
                },
                Stage::Body => {
                    if let Some(ty) = self.pending {
                        match self.value(ty, &buf[self.pos..])? {
                            Step::NeedMore => return Ok(None),
                            Step::Took(n) => {
                                self.take(n)?;
                                self.pending = None;
                            }
                        }
                        continue;
                    }
                    match self.next_item(&buf[self.pos..])? {
                        Step::NeedMore => return Ok(None),
                        Step::Took(n) => self.take(n)?,
                    }
                    if self.stack.is_empty() {
                        self.stage = Stage::Done;
                    }
                }
            }
        }
    }

    fn take(&mut self, n: usize) -> Result<(), ScanError> {
        self.pos += n;
        if self.pos > self.limit {
            return Err(ScanError::TooLarge { limit: self.limit });
        }
        Ok(())
    }

    /// Checks a declared length against what the message may still hold.
    fn check_len(&self, len: usize) -> Result<(), ScanError> {
        if len > self.limit.saturating_sub(self.pos) {
            return Err(ScanError::TooLarge { limit: self.limit });
        }
        Ok(())
    }

    fn header(&self, b: &[u8]) -> Result<Step, ScanError> {
        match self.protocol {
            Protocol::Binary => {
                let Some(first) = read_i32(b, 0) else {
                    return Ok(Step::NeedMore);
                };
                if first < 0 {
                    // Strict: version|type, name, seqid.
                    if (first as u32) & 0xffff_0000 != 0x8001_0000 {
                        return Err(ScanError::Malformed("bad binary protocol version"));
                    }
                    let Some(name_len) = read_i32(b, 4) else {
                        return Ok(Step::NeedMore);
                    };
                    let name_len = checked_name_len(name_len)?;
                    let total = 8 + name_len + 4;
                    Ok(if b.len() >= total { Step::Took(total) } else { Step::NeedMore })
                } else {
                    // Old style: name, type byte, seqid.
                    let name_len = checked_name_len(first)?;
                    let total = 4 + name_len + 1 + 4;
                    Ok(if b.len() >= total { Step::Took(total) } else { Step::NeedMore })
                }
            }
            Protocol::Compact => {
                if b.len() < 2 {
                    return Ok(Step::NeedMore);
                }
                if b[0] != 0x82 {
                    return Err(ScanError::Malformed("bad compact protocol id"));
                }
                if b[1] & 0x1f != 1 {
                    return Err(ScanError::Malformed("bad compact protocol version"));
                }
                let Some((_, seq_len)) = read_varint(&b[2..], 32)? else {
                    return Ok(Step::NeedMore);
                };
                let at = 2 + seq_len;
                let Some((name_len, len_len)) = read_varint(&b[at..], 32)? else {
                    return Ok(Step::NeedMore);
                };
                let name_len = checked_name_len(i32::try_from(name_len).unwrap_or(-1))?;
                let total = at + len_len + name_len;
                Ok(if b.len() >= total { Step::Took(total) } else { Step::NeedMore })
            }
        }
    }

    /// Reads the next field header or container slot and decides what comes next.
    fn next_item(&mut self, b: &[u8]) -> Result<Step, ScanError> {
        let protocol = self.protocol;
        let Some(top) = self.stack.last_mut() else {
            return Ok(Step::Took(0));
        };
        match top {
            Frame::Struct { last_id } => {
                let Some(&head) = b.first() else {
                    return Ok(Step::NeedMore);
                };
                if head == 0 {
                    self.stack.pop();
                    return Ok(Step::Took(1));
                }
                match protocol {
                    Protocol::Binary => {
                        if b.len() < 3 {
                            return Ok(Step::NeedMore);
                        }
                        self.pending = Some(head);
                        Ok(Step::Took(3))
                    }
                    Protocol::Compact => {
                        let ty = head & 0x0f;
                        let delta = head >> 4;
                        let mut used = 1;
                        if delta == 0 {
                            let Some((raw, n)) = read_varint(&b[1..], 16)? else {
                                return Ok(Step::NeedMore);
                            };
                            used += n;
                            *last_id = zigzag(raw) as i16;
                        } else {
                            *last_id = last_id.wrapping_add(i16::from(delta));
                        }
                        // Booleans in struct fields carry their value in the type nibble.
                        if ty != 1 && ty != 2 {
                            self.pending = Some(ty);
                        }
                        Ok(Step::Took(used))
                    }
                }
            }
            Frame::Seq { elem, remaining } => {
                if *remaining == 0 {
                    self.stack.pop();
                } else {
                    *remaining -= 1;
                    self.pending = Some(*elem);
                }
                Ok(Step::Took(0))
            }
            Frame::Map { key, value, remaining } => {
                if *remaining == 0 {
                    self.stack.pop();
                } else {
                    self.pending = Some(if *remaining % 2 == 0 { *key } else { *value });
                    *remaining -= 1;
                }
                Ok(Step::Took(0))
            }
        }
    }

    fn push(&mut self, frame: Frame) -> Result<(), ScanError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(ScanError::Malformed("nesting too deep"));
        }
        self.stack.push(frame);
        Ok(())
    }

    /// Consumes one value of wire type `ty` (its fixed part; string bodies are skipped
    /// through `self.skip`, containers push a frame).
    fn value(&mut self, ty: u8, b: &[u8]) -> Result<Step, ScanError> {
        match self.protocol {
            Protocol::Binary => self.binary_value(ty, b),
            Protocol::Compact => self.compact_value(ty, b),
        }
    }

    fn binary_value(&mut self, ty: u8, b: &[u8]) -> Result<Step, ScanError> {
        let fixed = |n: usize| if b.len() >= n { Step::Took(n) } else { Step::NeedMore };
        match ty {
            2 | 3 => Ok(fixed(1)),
            6 => Ok(fixed(2)),
            8 => Ok(fixed(4)),
            4 | 10 => Ok(fixed(8)),
            11 => {
                let Some(len) = read_i32(b, 0) else {
                    return Ok(Step::NeedMore);
                };
                let len = usize::try_from(len).map_err(|_| ScanError::Malformed("negative length"))?;
                self.check_len(len + 4)?;
                self.skip = len;
                Ok(Step::Took(4))
            }
            12 => {
                self.push(Frame::Struct { last_id: 0 })?;
                Ok(Step::Took(0))
            }
            13 => {
                let Some(size) = read_i32(b, 2) else {
                    return Ok(Step::NeedMore);
                };
                let size = checked_size(size)?;
                self.check_len(size as usize)?;
                self.push(Frame::Map { key: b[0], value: b[1], remaining: 2 * u64::from(size) })?;
                Ok(Step::Took(6))
            }
            14 | 15 => {
                let Some(size) = read_i32(b, 1) else {
                    return Ok(Step::NeedMore);
                };
                let size = checked_size(size)?;
                self.check_len(size as usize)?;
                self.push(Frame::Seq { elem: b[0], remaining: size })?;
                Ok(Step::Took(5))
            }
            _ => Err(ScanError::Malformed("unknown binary type")),
        }
    }

    fn compact_value(&mut self, ty: u8, b: &[u8]) -> Result<Step, ScanError> {
        match ty {
            // Booleans and bytes inside containers take one byte.
            1..=3 => Ok(if b.is_empty() { Step::NeedMore } else { Step::Took(1) }),
            4..=6 => Ok(match read_varint(b, [16, 32, 64][usize::from(ty - 4)])? {
                Some((_, n)) => Step::Took(n),
                None => Step::NeedMore,
            }),
            7 => Ok(if b.len() >= 8 { Step::Took(8) } else { Step::NeedMore }),
            8 => {
                let Some((len, n)) = read_varint(b, 32)? else {
                    return Ok(Step::NeedMore);
                };
                let len = usize::try_from(len).map_err(|_| ScanError::TooLarge { limit: self.limit })?;
                self.check_len(len.saturating_add(n))?;
                self.skip = len;
                Ok(Step::Took(n))
            }
            9 | 10 => {
                let Some(&head) = b.first() else {
                    return Ok(Step::NeedMore);
                };
                let elem = head & 0x0f;
                let (size, used) = if head >> 4 == 15 {
                    let Some((size, n)) = read_varint(&b[1..], 31)? else {
                        return Ok(Step::NeedMore);
                    };
                    (size, 1 + n)
                } else {
                    (u64::from(head >> 4), 1)
                };
                let size = u32::try_from(size).map_err(|_| ScanError::Malformed("list too long"))?;
                self.check_len(size as usize)?;
                self.push(Frame::Seq { elem, remaining: size })?;
                Ok(Step::Took(used))
            }
            11 => {
                let Some((size, n)) = read_varint(b, 31)? else {
                    return Ok(Step::NeedMore);
                };
                if size == 0 {
                    return Ok(Step::Took(n));
                }
                let Some(&types) = b.get(n) else {
                    return Ok(Step::NeedMore);
                };
                let size = u32::try_from(size).map_err(|_| ScanError::Malformed("map too long"))?;
                self.check_len(size as usize)?;
                self.push(Frame::Map { key: types >> 4, value: types & 0x0f, remaining: 2 * u64::from(size) })?;
                Ok(Step::Took(n + 1))
            }
            12 => {
                self.push(Frame::Struct { last_id: 0 })?;
                Ok(Step::Took(0))
            }
            _ => Err(ScanError::Malformed("unknown compact type")),
        }
    }
}

fn read_i32(b: &[u8], at: usize) -> Option<i32> {
    let bytes = b.get(at..at + 4)?;
    Some(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// A varint of at most `bits` bits ([`varint`]): `Some((value, bytes used))`, `None`
/// while `b` ends inside it.
fn read_varint(b: &[u8], bits: u32) -> Result<Option<(u64, usize)>, ScanError> {
    match varint(b, bits) {
        Ok(read) => Ok(Some(read)),
        Err(WireError::Truncated) => Ok(None),
        Err(WireError::TooLarge | WireError::Malformed(_)) => Err(ScanError::Malformed("bad varint")),
    }
}

fn checked_name_len(len: i32) -> Result<usize, ScanError> {
    match usize::try_from(len) {
        Ok(n) if n <= MAX_NAME_LEN => Ok(n),
        _ => Err(ScanError::Malformed("bad method name length")),
    }
}

fn checked_size(size: i32) -> Result<u32, ScanError> {
    u32::try_from(size).map_err(|_| ScanError::Malformed("negative container size"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hbase::{TColumnValue, TResult};

    fn sample_results(n: usize) -> Vec<TResult> {
        (0..n)
            .map(|i| TResult {
                row: Some(format!("row-{i:05}").into_bytes()),
                column_values: vec![
                    TColumnValue::new(
                        b"cf".to_vec(),
                        b"q".to_vec(),
                        vec![i as u8; i % 300],
                        Some(i as i64),
                        None,
                        None,
                    ),
                    TColumnValue::new(b"cf".to_vec(), Vec::new(), Vec::new(), None, None, Some(4)),
                ],
                stale: Some(i % 2 == 0),
                partial: None,
            })
            .collect()
    }

    fn encode(protocol: Protocol, results: &[TResult]) -> Vec<u8> {
        crate::test_replies::reply(protocol, "getScannerRows", 7, crate::test_replies::Success::Many(results))
    }

    #[test]
    fn finds_the_end_for_every_split_point() {
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let msg = encode(protocol, &sample_results(40));
            // Feed the message in two pieces at every split point, and with trailing bytes.
            for split in 0..msg.len() {
                let mut scanner = MessageScanner::new(protocol, 1 << 20);
                assert_eq!(scanner.advance(&msg[..split]).unwrap(), None, "{protocol:?} split {split}");
                let mut whole = msg.clone();
                whole.extend_from_slice(b"next");
                assert_eq!(scanner.advance(&whole).unwrap(), Some(msg.len()), "{protocol:?} split {split}");
            }
        }
    }

    #[test]
    fn byte_by_byte_is_complete_exactly_at_the_end() {
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let msg = encode(protocol, &sample_results(5));
            let mut scanner = MessageScanner::new(protocol, 1 << 20);
            for end in 0..msg.len() {
                assert_eq!(scanner.advance(&msg[..end]).unwrap(), None);
            }
            assert_eq!(scanner.advance(&msg).unwrap(), Some(msg.len()));
        }
    }

    #[test]
    fn rejects_replies_over_the_limit_before_they_arrive() {
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let msg = encode(protocol, &sample_results(40));
            let mut scanner = MessageScanner::new(protocol, msg.len() - 1);
            let err = scanner.advance(&msg).unwrap_err();
            assert_eq!(err, ScanError::TooLarge { limit: msg.len() - 1 });
        }
        // A header that declares a 2 GB string is refused from its first bytes.
        let mut msg = encode(Protocol::Binary, &[]);
        let header_len = 4 + 4 + "getScannerRows".len() + 4;
        msg.truncate(header_len);
        msg.extend_from_slice(&[11, 0, 0]); // a string field, then its length
        msg.extend_from_slice(&i32::MAX.to_be_bytes());
        let mut scanner = MessageScanner::new(Protocol::Binary, 64 << 20);
        assert_eq!(scanner.advance(&msg).unwrap_err(), ScanError::TooLarge { limit: 64 << 20 });
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let len = (state % 64) as usize;
            let mut bytes = Vec::with_capacity(len);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                bytes.push(state as u8);
            }
            for protocol in [Protocol::Binary, Protocol::Compact] {
                let _ = MessageScanner::new(protocol, 4096).advance(&bytes);
            }
        }
    }
}
