//! A bounded reader of Thrift values (strict binary and compact protocols) over a byte
//! slice that may still be growing.
//!
//! Every length and element count is checked against the bytes the message may still
//! hold (`limit`) before anything is allocated or skipped, and against the bytes that
//! have arrived (`buf`): running out of the latter is [`WireError::Truncated`] (read
//! more and try again), never a panic. Values are returned as positions into the
//! buffer; nothing is copied.

use crate::Protocol;

/// Deepest nesting of structs and containers accepted (HBase's replies are < 8 deep).
pub(crate) const MAX_DEPTH: usize = 64;
/// Longest method name accepted in a message header.
const MAX_NAME_LEN: usize = 1024;

/// Why a value could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WireError {
    /// The bytes that have arrived end inside the value.
    Truncated,
    /// The value declares more bytes than the message may hold (`limit`).
    TooLarge,
    /// The bytes do not follow the protocol.
    Malformed(String),
}

pub(crate) type WireResult<T> = Result<T, WireError>;

pub(crate) fn malformed<T>(what: impl Into<String>) -> WireResult<T> {
    Err(WireError::Malformed(what.into()))
}

/// A value's type on the wire, the same for both protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WireType {
    Bool,
    Byte,
    I16,
    I32,
    I64,
    Double,
    Binary,
    Struct,
    Map,
    Set,
    List,
}

impl WireType {
    fn from_binary(code: u8) -> WireResult<WireType> {
        Ok(match code {
            2 => WireType::Bool,
            3 => WireType::Byte,
            4 => WireType::Double,
            6 => WireType::I16,
            8 => WireType::I32,
            10 => WireType::I64,
            11 => WireType::Binary,
            12 => WireType::Struct,
            13 => WireType::Map,
            14 => WireType::Set,
            15 => WireType::List,
            other => return malformed(format!("unknown binary protocol type {other}")),
        })
    }

    fn from_compact(code: u8) -> WireResult<WireType> {
        Ok(match code {
            1 | 2 => WireType::Bool,
            3 => WireType::Byte,
            4 => WireType::I16,
            5 => WireType::I32,
            6 => WireType::I64,
            7 => WireType::Double,
            8 => WireType::Binary,
            9 => WireType::List,
            10 => WireType::Set,
            11 => WireType::Map,
            12 => WireType::Struct,
            other => return malformed(format!("unknown compact protocol type {other}")),
        })
    }

    /// The fewest bytes one value of this type takes on the wire.
    pub(crate) fn min_wire_size(self, protocol: Protocol) -> usize {
        match (protocol, self) {
            (_, WireType::Bool | WireType::Byte | WireType::Struct) => 1,
            (_, WireType::Double) => 8,
            (Protocol::Compact, _) => 1,
            (_, WireType::I16) => 2,
            (_, WireType::I32 | WireType::Binary) => 4,
            (_, WireType::I64) => 8,
            (_, WireType::Map) => 6,
            (_, WireType::Set | WireType::List) => 5,
        }
    }
}

/// The ULEB128 varint at the start of `b`, of at most `ceil(bits / 7)` bytes, whose
/// value fits `bits` bits: `(value, bytes used)`. [`WireError::Truncated`] when `b` ends
/// inside it. The one varint reader of the crate (the bounded [`Reader`] and the
/// incremental message walker both use it).
#[inline]
pub(crate) fn varint(b: &[u8], bits: u32) -> WireResult<(u64, usize)> {
    let max_bytes = bits.div_ceil(7) as usize;
    let mut value = 0u64;
    for (i, &byte) in b.iter().take(max_bytes).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            if bits < 64 && value >> bits != 0 {
                return malformed(format!("varint overflows {bits} bits"));
            }
            return Ok((value, i + 1));
        }
    }
    if b.len() >= max_bytes {
        return malformed(format!("varint longer than {max_bytes} bytes"));
    }
    Err(WireError::Truncated)
}

/// Decodes a zigzag-encoded signed value.
#[inline]
pub(crate) fn zigzag(raw: u64) -> i64 {
    ((raw >> 1) as i64) ^ -((raw & 1) as i64)
}

/// A reply's message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MessageHeader<'a> {
    pub name: &'a [u8],
    /// 1 call, 2 reply, 3 exception, 4 oneway.
    pub kind: u8,
    pub seq: i32,
}

/// A struct field's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldHeader {
    pub ty: WireType,
    pub id: i16,
    /// Compact protocol: a boolean field's value travels in its header.
    pub inline_bool: Option<bool>,
}

/// A container's header: element type(s) and count, the count already checked
/// against the bytes the message may still hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContainerHeader {
    pub key: WireType,
    /// The element type (lists, sets) or the value type (maps).
    pub elem: WireType,
    pub count: usize,
}

/// A cursor over `buf[pos..]`, for a message that may not extend past `limit`.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pub pos: usize,
    limit: usize,
    protocol: Protocol,
}

impl<'a> Reader<'a> {
    /// A reader of `buf` from `pos`; the message may not extend past `limit` (at least
    /// `buf.len()` once the message is complete).
    pub(crate) fn new(protocol: Protocol, buf: &'a [u8], pos: usize, limit: usize) -> Self {
        Reader { buf, pos, limit, protocol }
    }

    /// Bytes the message may still hold after the current position.
    pub(crate) fn room(&self) -> usize {
        self.limit.saturating_sub(self.pos)
    }

    /// Bytes that have arrived after the current position.
    pub(crate) fn available(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// `len` bytes at `start`, as returned by [`Reader::binary`].
    pub(crate) fn slice(&self, start: usize, len: usize) -> &'a [u8] {
        self.buf.get(start..start.saturating_add(len)).unwrap_or_default()
    }

    fn take(&mut self, n: usize) -> WireResult<&'a [u8]> {
        if n > self.room() {
            return Err(WireError::TooLarge);
        }
        let end = self.pos.checked_add(n).ok_or(WireError::TooLarge)?;
        let bytes = self.buf.get(self.pos..end).ok_or(WireError::Truncated)?;
        self.pos = end;
        Ok(bytes)
    }

    fn fixed<const N: usize>(&mut self) -> WireResult<[u8; N]> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(crate) fn byte(&mut self) -> WireResult<u8> {
        Ok(self.fixed::<1>()?[0])
    }

    /// A ULEB128 varint whose value fits `bits` bits ([`varint`]), within the message.
    fn varint(&mut self, bits: u32) -> WireResult<u64> {
        let end = self.limit.min(self.buf.len());
        let rest = self.buf.get(self.pos..end).unwrap_or_default();
        match varint(rest, bits) {
            Ok((value, used)) => {
                self.pos += used;
                Ok(value)
            }
            // Cut where the message may not go on: it declares more than it may hold.
            Err(WireError::Truncated) if end == self.limit => Err(WireError::TooLarge),
            Err(e) => Err(e),
        }
    }

    fn zigzag(&mut self, bits: u32) -> WireResult<i64> {
        self.varint(bits).map(zigzag)
    }

    pub(crate) fn i16(&mut self) -> WireResult<i16> {
        match self.protocol {
            Protocol::Binary => Ok(i16::from_be_bytes(self.fixed()?)),
            Protocol::Compact => Ok(self.zigzag(16)? as i16),
        }
    }

    pub(crate) fn i32(&mut self) -> WireResult<i32> {
        match self.protocol {
            Protocol::Binary => Ok(i32::from_be_bytes(self.fixed()?)),
            Protocol::Compact => Ok(self.zigzag(32)? as i32),
        }
    }

    pub(crate) fn i64(&mut self) -> WireResult<i64> {
        match self.protocol {
            Protocol::Binary => Ok(i64::from_be_bytes(self.fixed()?)),
            Protocol::Compact => self.zigzag(64),
        }
    }

    pub(crate) fn double(&mut self) -> WireResult<f64> {
        let bytes: [u8; 8] = self.fixed()?;
        Ok(match self.protocol {
            Protocol::Binary => f64::from_be_bytes(bytes),
            Protocol::Compact => f64::from_le_bytes(bytes),
        })
    }

    /// A boolean field's value (`field` is its header) or, with `None`, a boolean
    /// inside a container.
    pub(crate) fn bool(&mut self, field: Option<&FieldHeader>) -> WireResult<bool> {
        if let Some(value) = field.and_then(|f| f.inline_bool) {
            return Ok(value);
        }
        let byte = self.byte()?;
        match self.protocol {
            Protocol::Binary => Ok(byte != 0),
            Protocol::Compact => match byte {
                1 => Ok(true),
                2 => Ok(false),
                other => malformed(format!("{other} is not a compact boolean")),
            },
        }
    }

    /// Reads a binary/string length prefix and returns `(start, len)` of its bytes,
    /// which have all arrived.
    pub(crate) fn binary(&mut self) -> WireResult<(usize, usize)> {
        let len = match self.protocol {
            Protocol::Binary => {
                let len = i32::from_be_bytes(self.fixed()?);
                usize::try_from(len).or_else(|_| malformed(format!("negative length {len}")))?
            }
            Protocol::Compact => usize::try_from(self.varint(32)?).map_err(|_| WireError::TooLarge)?,
        };
        let start = self.pos;
        self.take(len)?;
        Ok((start, len))
    }

    /// The message header (strict binary, or compact).
    pub(crate) fn message_begin(&mut self) -> WireResult<MessageHeader<'a>> {
        match self.protocol {
            Protocol::Binary => {
                let first = u32::from_be_bytes(self.fixed()?);
                if first & 0xffff_0000 != 0x8001_0000 {
                    return malformed(format!("bad binary protocol version {first:#010x} (not a strict binary reply)"));
                }
                let name = self.name()?;
                let seq = self.i32()?;
                Ok(MessageHeader { name, kind: (first & 0xff) as u8, seq })
            }
            Protocol::Compact => {
                let [id, version] = self.fixed()?;
                if id != 0x82 {
                    return malformed(format!("bad compact protocol id {id:#04x}"));
                }
                if version & 0x1f != 1 {
                    return malformed(format!("bad compact protocol version {}", version & 0x1f));
                }
                let seq = self.varint(32)? as u32 as i32;
                let name = self.name()?;
                Ok(MessageHeader { name, kind: version >> 5, seq })
            }
        }
    }

    fn name(&mut self) -> WireResult<&'a [u8]> {
        let (start, len) = self.binary()?;
        if len > MAX_NAME_LEN {
            return malformed(format!("method name of {len} bytes"));
        }
        Ok(&self.buf[start..start + len])
    }

    /// The next field header of a struct, `None` at its stop byte. `last_id` is the
    /// previous field's id in this struct (0 at its start), for compact deltas.
    pub(crate) fn field(&mut self, last_id: &mut i16) -> WireResult<Option<FieldHeader>> {
        let head = self.byte()?;
        if head == 0 {
            return Ok(None);
        }
        let header = match self.protocol {
            Protocol::Binary => {
                let ty = WireType::from_binary(head)?;
                FieldHeader { ty, id: self.i16()?, inline_bool: None }
            }
            Protocol::Compact => {
                let code = head & 0x0f;
                let ty = WireType::from_compact(code)?;
                let delta = head >> 4;
                let id = if delta == 0 {
                    self.i16()?
                } else {
                    last_id.checked_add(i16::from(delta)).map_or_else(|| malformed("compact field id overflows"), Ok)?
                };
                let inline_bool = match code {
                    1 => Some(true),
                    2 => Some(false),
                    _ => None,
                };
                FieldHeader { ty, id, inline_bool }
            }
        };
        *last_id = header.id;
        Ok(Some(header))
    }

    /// A list's or set's header.
    pub(crate) fn list_begin(&mut self) -> WireResult<ContainerHeader> {
        let (elem, count) = match self.protocol {
            Protocol::Binary => {
                let elem = WireType::from_binary(self.byte()?)?;
                let count = i32::from_be_bytes(self.fixed()?);
                (elem, usize::try_from(count).or_else(|_| malformed(format!("negative list size {count}")))?)
            }
            Protocol::Compact => {
                let head = self.byte()?;
                let elem = WireType::from_compact(head & 0x0f)?;
                let short = head >> 4;
                let count = if short == 15 { self.varint(31)? as usize } else { usize::from(short) };
                (elem, count)
            }
        };
        self.check_count(count, elem.min_wire_size(self.protocol))?;
        Ok(ContainerHeader { key: elem, elem, count })
    }

    /// A map's header (`count` entries).
    pub(crate) fn map_begin(&mut self) -> WireResult<ContainerHeader> {
        let (key, value, count) = match self.protocol {
            Protocol::Binary => {
                let key = WireType::from_binary(self.byte()?)?;
                let value = WireType::from_binary(self.byte()?)?;
                let count = i32::from_be_bytes(self.fixed()?);
                (key, value, usize::try_from(count).or_else(|_| malformed(format!("negative map size {count}")))?)
            }
            Protocol::Compact => {
                let count = self.varint(31)? as usize;
                if count == 0 {
                    return Ok(ContainerHeader { key: WireType::Byte, elem: WireType::Byte, count: 0 });
                }
                let types = self.byte()?;
                (WireType::from_compact(types >> 4)?, WireType::from_compact(types & 0x0f)?, count)
            }
        };
        let entry = key.min_wire_size(self.protocol) + value.min_wire_size(self.protocol);
        self.check_count(count, entry)?;
        Ok(ContainerHeader { key, elem: value, count })
    }

    /// A count of elements of at least `min_size` bytes each must fit the message.
    fn check_count(&self, count: usize, min_size: usize) -> WireResult<()> {
        if count.saturating_mul(min_size) > self.room() {
            return Err(WireError::TooLarge);
        }
        Ok(())
    }

    /// Skips one value of type `ty` (a field's value when `field` is given), `depth`
    /// levels deep.
    pub(crate) fn skip(&mut self, ty: WireType, field: Option<&FieldHeader>, depth: usize) -> WireResult<()> {
        if depth >= MAX_DEPTH {
            return malformed("nesting too deep");
        }
        match ty {
            WireType::Bool => self.bool(field).map(|_| ()),
            WireType::Byte => self.byte().map(|_| ()),
            WireType::I16 => self.i16().map(|_| ()),
            WireType::I32 => self.i32().map(|_| ()),
            WireType::I64 => self.i64().map(|_| ()),
            WireType::Double => self.double().map(|_| ()),
            WireType::Binary => self.binary().map(|_| ()),
            WireType::Struct => {
                let mut last_id = 0;
                while let Some(f) = self.field(&mut last_id)? {
                    self.skip(f.ty, Some(&f), depth + 1)?;
                }
                Ok(())
            }
            WireType::List | WireType::Set => {
                let header = self.list_begin()?;
                for _ in 0..header.count {
                    self.skip(header.elem, None, depth + 1)?;
                }
                Ok(())
            }
            WireType::Map => {
                let header = self.map_begin()?;
                for _ in 0..header.count {
                    self.skip(header.key, None, depth + 1)?;
                    self.skip(header.elem, None, depth + 1)?;
                }
                Ok(())
            }
        }
    }
}

/// The length and start of the binary value whose length prefix is at `prefix` in a
/// buffer already validated by a [`Reader`]; `(0, 0)` (empty) if it does not parse.
pub(crate) fn binary_at(protocol: Protocol, buf: &[u8], prefix: usize) -> (usize, usize) {
    let mut reader = Reader::new(protocol, buf, prefix, buf.len());
    match reader.binary() {
        Ok(span) => span,
        Err(_) => (prefix.min(buf.len()), 0),
    }
}

/// The `i64` at `at` in a validated buffer (0 if it does not parse).
pub(crate) fn i64_at(protocol: Protocol, buf: &[u8], at: usize) -> i64 {
    Reader::new(protocol, buf, at, buf.len()).i64().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bounded_by_the_room_left() {
        // A binary list header declaring 10^9 structs in a 40-byte message.
        let mut bytes = vec![12u8];
        bytes.extend_from_slice(&1_000_000_000i32.to_be_bytes());
        let mut reader = Reader::new(Protocol::Binary, &bytes, 0, 40);
        assert_eq!(reader.list_begin(), Err(WireError::TooLarge));
        // The same in compact: header 0xfc, varint count.
        let bytes = [0xfc, 0x80, 0x94, 0xeb, 0xdc, 0x03];
        let mut reader = Reader::new(Protocol::Compact, &bytes, 0, 40);
        assert_eq!(reader.list_begin(), Err(WireError::TooLarge));
    }

    #[test]
    fn truncation_and_bad_lengths_are_errors() {
        let bytes = [0, 0, 0, 9, b'a'];
        assert_eq!(Reader::new(Protocol::Binary, &bytes, 0, 100).binary(), Err(WireError::Truncated));
        assert_eq!(Reader::new(Protocol::Binary, &bytes, 0, 5).binary(), Err(WireError::TooLarge));
        let negative = [0xff, 0xff, 0xff, 0xfe];
        assert!(matches!(Reader::new(Protocol::Binary, &negative, 0, 100).binary(), Err(WireError::Malformed(_))));
        let long_varint = [0xff; 12];
        assert!(matches!(Reader::new(Protocol::Compact, &long_varint, 0, 100).i64(), Err(WireError::Malformed(_))));
    }

    #[test]
    fn deep_nesting_is_refused() {
        // 100 nested lists of lists, compact: each header 0x19 (1 element of type list).
        let bytes = vec![0x19u8; 100];
        let mut reader = Reader::new(Protocol::Compact, &bytes, 0, 100);
        assert!(matches!(reader.skip(WireType::List, None, 0), Err(WireError::Malformed(_))));
    }
}
