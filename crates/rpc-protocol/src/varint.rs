//! Varint-delimited protobuf messages (Java's `writeDelimitedTo`), read from `Bytes`
//! without copying and with every length bounded by what remains.

use bytes::{Bytes, BytesMut};
use prost::Message;

use crate::error::FrameError;

/// The longest varint protobuf writes (a 64-bit value).
const MAX_VARINT_LEN: usize = 10;

/// Reads a varint at the start of `data`: its value and how many bytes it took.
pub(crate) fn read_varint(data: &[u8], part: &'static str) -> Result<(u64, usize), FrameError> {
    let mut value: u64 = 0;
    for (index, byte) in data.iter().take(MAX_VARINT_LEN).enumerate() {
        let low = u64::from(byte & 0x7f);
        let shift = 7 * index as u32;
        // The tenth byte may only hold the 64th bit.
        if index == MAX_VARINT_LEN - 1 && low > 1 {
            return Err(FrameError::BadVarint { part });
        }
        value |= low << shift;
        if byte & 0x80 == 0 {
            return Ok((value, index + 1));
        }
    }
    if data.len() >= MAX_VARINT_LEN {
        Err(FrameError::BadVarint { part })
    } else {
        Err(FrameError::Truncated { part, needed: data.len() as u64 + 1, remaining: data.len() as u64 })
    }
}

/// Splits one varint-delimited message off the front of `rest` and returns its bytes (a
/// slice of the same buffer, without the length prefix).
pub(crate) fn take_delimited(rest: &mut Bytes, part: &'static str) -> Result<Bytes, FrameError> {
    let (length, prefix) = read_varint(rest, part)?;
    let remaining = (rest.len() - prefix) as u64;
    if length > remaining {
        return Err(FrameError::Truncated { part, needed: length, remaining });
    }
    let end = prefix + length as usize;
    let message = rest.slice(prefix..end);
    let _ = rest.split_to(end);
    Ok(message)
}

/// Decodes a protobuf message from `bytes` (a slice of the frame: `bytes` fields share it).
pub(crate) fn decode_message<M: Message + Default>(bytes: Bytes, part: &'static str) -> Result<M, FrameError> {
    M::decode(bytes).map_err(|error| FrameError::Protobuf { part, reason: error.to_string() })
}

/// The size of `message` once written with its varint length prefix.
pub(crate) fn delimited_len<M: Message>(message: &M) -> usize {
    let length = message.encoded_len();
    prost::length_delimiter_len(length) + length
}

/// Appends `message` with its varint length prefix.
pub(crate) fn put_delimited<M: Message>(message: &M, part: &'static str, out: &mut BytesMut) -> Result<(), FrameError> {
    out.reserve(delimited_len(message));
    // A BytesMut grows as needed, so prost's "buffer too small" cannot happen here;
    // the error is still reported rather than dropped.
    message.encode_length_delimited(out).map_err(|error| FrameError::Protobuf { part, reason: error.to_string() })
}

/// Fills bytes already sized for what is written (`BytesMut::resize`), piece by piece:
/// one size check for a whole record instead of one capacity check and one call per
/// field. Writing more than was sized panics; the callers size from the same lengths.
pub(crate) struct Filler<'a>(&'a mut [u8]);

impl<'a> Filler<'a> {
    /// Fills the bytes of `out` from `start` to its end.
    pub(crate) fn at(out: &'a mut BytesMut, start: usize) -> Filler<'a> {
        Filler(&mut out[start..])
    }

    /// Copies `bytes`.
    #[inline]
    pub(crate) fn put(&mut self, bytes: &[u8]) {
        let (head, rest) = std::mem::take(&mut self.0).split_at_mut(bytes.len());
        head.copy_from_slice(bytes);
        self.0 = rest;
    }

    /// One byte.
    #[inline]
    pub(crate) fn byte(&mut self, byte: u8) {
        let (first, rest) = std::mem::take(&mut self.0).split_first_mut().expect("a byte sized for");
        *first = byte;
        self.0 = rest;
    }

    /// A varint, as protobuf writes it.
    #[inline]
    pub(crate) fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.byte((value as u8) | 0x80);
            value >>= 7;
        }
        self.byte(value as u8);
    }

    /// A field's key (tag and wire type).
    #[inline]
    pub(crate) fn key(&mut self, tag: u32, wire_type: prost::encoding::WireType) {
        self.varint(u64::from(tag << 3 | wire_type as u32));
    }

    /// Whether every sized byte was written.
    pub(crate) fn is_full(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn varint_reads_known_values() {
        assert_eq!(read_varint(&[0], "t").unwrap(), (0, 1));
        assert_eq!(read_varint(&[0x96, 0x01], "t").unwrap(), (150, 2));
        assert_eq!(read_varint(&[0xff, 0xff, 0xff, 0xff, 0x0f], "t").unwrap(), (u64::from(u32::MAX), 5));
    }

    #[test]
    fn varint_rejects_truncated_and_overlong() {
        assert!(matches!(read_varint(&[], "t"), Err(FrameError::Truncated { .. })));
        assert!(matches!(read_varint(&[0x80, 0x80], "t"), Err(FrameError::Truncated { .. })));
        assert_eq!(read_varint(&[0x80; 11], "t"), Err(FrameError::BadVarint { part: "t" }));
        let mut too_big = [0xff; 10];
        too_big[9] = 0x02;
        assert_eq!(read_varint(&too_big, "t"), Err(FrameError::BadVarint { part: "t" }));
    }

    #[test]
    fn delimited_length_beyond_the_data_is_truncated() {
        let mut rest = Bytes::from_static(&[5, 1, 2]);
        assert_eq!(take_delimited(&mut rest, "m"), Err(FrameError::Truncated { part: "m", needed: 5, remaining: 2 }));
    }

    proptest! {
        #[test]
        fn filled_varints_are_protobufs(value in any::<u64>(), tag in 1u32..(1 << 29)) {
            let mut want = Vec::new();
            prost::encoding::encode_key(tag, prost::encoding::WireType::Varint, &mut want);
            prost::encoding::encode_varint(value, &mut want);
            let mut out = BytesMut::new();
            out.resize(want.len(), 0xee);
            let mut filler = Filler::at(&mut out, 0);
            filler.key(tag, prost::encoding::WireType::Varint);
            filler.varint(value);
            prop_assert!(filler.is_full());
            prop_assert_eq!(&out[..], &want[..]);
        }

        #[test]
        fn varint_round_trips(value in any::<u64>()) {
            let mut out = Vec::new();
            prost::encoding::encode_varint(value, &mut out);
            prop_assert_eq!(read_varint(&out, "t").unwrap(), (value, out.len()));
        }

        #[test]
        fn delimited_round_trips(payload in proptest::collection::vec(any::<u8>(), 0..300)) {
            let message = crate::pb::CellBlockMeta { length: Some(payload.len() as u32) };
            let mut out = BytesMut::new();
            put_delimited(&message, "m", &mut out).unwrap();
            prop_assert_eq!(out.len(), delimited_len(&message));
            out.extend_from_slice(&payload);
            let mut rest = out.freeze();
            let bytes = take_delimited(&mut rest, "m").unwrap();
            let back: crate::pb::CellBlockMeta = decode_message(bytes, "m").unwrap();
            prop_assert_eq!(back, message);
            prop_assert_eq!(&rest[..], &payload[..]);
        }

        #[test]
        fn hostile_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..40)) {
            let mut rest = Bytes::from(data);
            let _ = take_delimited(&mut rest, "m");
        }
    }
}
