//! Thrift binary-protocol bytes, written by hand so that a test can say anything a
//! hostile server could: counts that do not match the data, wrong types, truncations.

/// Thrift wire types (binary protocol codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TType {
    /// End of a struct's fields.
    Stop = 0,
    /// `bool`.
    Bool = 2,
    /// `byte`.
    Byte = 3,
    /// `double`.
    Double = 4,
    /// `i16`.
    I16 = 6,
    /// `i32`.
    I32 = 8,
    /// `i64`.
    I64 = 10,
    /// `string` / `binary`.
    String = 11,
    /// A struct.
    Struct = 12,
    /// `map`.
    Map = 13,
    /// `set`.
    Set = 14,
    /// `list`.
    List = 15,
}

/// Thrift message types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MessageType {
    /// A request.
    Call = 1,
    /// A normal answer.
    Reply = 2,
    /// A `TApplicationException`.
    Exception = 3,
}

/// Builds strict binary-protocol bytes; every method appends and returns `self`.
///
/// ```
/// use basalt_chaos::{BinaryWriter, MessageType, TType};
/// // A reply to `getMultiple` whose list claims a billion structs: 34 bytes.
/// let bytes = BinaryWriter::new()
///     .message("getMultiple", MessageType::Reply, 1)
///     .field(TType::List, 0)
///     .list(TType::Struct, 1_000_000_000)
///     .into_bytes();
/// assert_eq!(bytes.len(), 4 + 4 + 11 + 4 + 3 + 5);
/// ```
#[derive(Debug, Clone, Default)]
pub struct BinaryWriter {
    bytes: Vec<u8>,
}

impl BinaryWriter {
    /// An empty buffer.
    pub fn new() -> BinaryWriter {
        BinaryWriter::default()
    }

    /// A strict message header: version and type, method name, sequence id.
    pub fn message(self, name: &str, kind: MessageType, seqid: i32) -> BinaryWriter {
        self.i32(i32::from_be_bytes([0x80, 0x01, 0x00, kind as u8])).string(name.as_bytes()).i32(seqid)
    }

    /// A field header.
    pub fn field(self, ty: TType, id: i16) -> BinaryWriter {
        self.byte(ty as u8).i16(id)
    }

    /// The end of a struct.
    pub fn stop(self) -> BinaryWriter {
        self.byte(0)
    }

    /// A list (or set) header claiming `count` elements of type `elem`.
    pub fn list(self, elem: TType, count: i32) -> BinaryWriter {
        self.byte(elem as u8).i32(count)
    }

    /// A map header claiming `count` entries.
    pub fn map(self, key: TType, value: TType, count: i32) -> BinaryWriter {
        self.byte(key as u8).byte(value as u8).i32(count)
    }

    /// A length-prefixed string or binary.
    pub fn string(self, s: &[u8]) -> BinaryWriter {
        let len = i32::try_from(s.len()).unwrap_or(i32::MAX);
        self.i32(len).raw(s)
    }

    /// A string header claiming `len` bytes, without the bytes.
    pub fn string_header(self, len: i32) -> BinaryWriter {
        self.i32(len)
    }

    /// One byte.
    pub fn byte(mut self, b: u8) -> BinaryWriter {
        self.bytes.push(b);
        self
    }

    /// A big-endian `i16`.
    pub fn i16(self, v: i16) -> BinaryWriter {
        self.raw(&v.to_be_bytes())
    }

    /// A big-endian `i32`.
    pub fn i32(self, v: i32) -> BinaryWriter {
        self.raw(&v.to_be_bytes())
    }

    /// A big-endian `i64`.
    pub fn i64(self, v: i64) -> BinaryWriter {
        self.raw(&v.to_be_bytes())
    }

    /// Bytes as they are.
    pub fn raw(mut self, bytes: &[u8]) -> BinaryWriter {
        self.bytes.extend_from_slice(bytes);
        self
    }

    /// `n` copies of `byte` (e.g. `n` empty structs: `repeat(0, n)`).
    pub fn repeat(mut self, byte: u8, n: usize) -> BinaryWriter {
        self.bytes.resize(self.bytes.len() + n, byte);
        self
    }

    /// A `TApplicationException` reply: message, kind (6 = internal error), stop.
    pub fn application_exception(self, name: &str, seqid: i32, message: &str, kind: i32) -> BinaryWriter {
        self.message(name, MessageType::Exception, seqid)
            .field(TType::String, 1)
            .string(message.as_bytes())
            .field(TType::I32, 2)
            .i32(kind)
            .stop()
    }

    /// Bytes so far.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_exception_layout() {
        let b = BinaryWriter::new().message("get", MessageType::Reply, 7).into_bytes();
        assert_eq!(b, [0x80, 1, 0, 2, 0, 0, 0, 3, b'g', b'e', b't', 0, 0, 0, 7]);
        let e = BinaryWriter::new().application_exception("get", 1, "boom", 6).into_bytes();
        assert_eq!(e[3], 3);
        assert_eq!(*e.last().unwrap(), 0);
        assert_eq!(e.len(), 15 + 3 + 4 + 4 + 3 + 4 + 1);
    }
}
