//! What the server writes back: reply frames, read incrementally from a byte buffer.
//!
//! A reply is a 4-byte big-endian length, then the varint-delimited `ResponseHeader`
//! (call id, the remote exception if the call failed, the cell block's length if one
//! follows), then the varint-delimited response message (absent when the call failed),
//! then the cell block. Replies come in any order; the call id matches them to calls.
//! A call id of `u32::MAX` (Java's `-1`) is a connection-level answer, such as a fatal
//! error about the connection header.

use bytes::{Buf, Bytes, BytesMut};
use prost::Message;

use crate::error::FrameError;
use crate::exception::RemoteException;
use crate::pb;
use crate::varint::{decode_message, take_delimited};

/// One whole reply. Its byte fields are slices of the frame that arrived, not copies.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The call this reply answers.
    pub call_id: u32,
    /// The decoded `ResponseHeader`.
    pub header: pb::ResponseHeader,
    /// The response message's bytes, without their varint prefix: `None` when the call
    /// failed (see [`Reply::exception`]) or the server sent no message.
    pub response: Option<Bytes>,
    /// The cell block (empty when the header announced none).
    pub cell_block: Bytes,
}

impl Reply {
    /// The remote exception this reply carries, if the call failed.
    pub fn exception(&self) -> Option<RemoteException> {
        self.header.exception.as_ref().map(RemoteException::from_pb)
    }

    /// Decodes the response message as `M`. A failed call gives
    /// [`FrameError::IsException`]; a reply without a message [`FrameError::MissingResponse`].
    pub fn decode_response<M: Message + Default>(&self) -> Result<M, FrameError> {
        if let Some(exception) = &self.header.exception {
            return Err(FrameError::IsException {
                call_id: self.call_id,
                class_name: exception.exception_class_name.clone().unwrap_or_default(),
            });
        }
        match &self.response {
            Some(bytes) => decode_message(bytes.clone(), "response"),
            None => Err(FrameError::MissingResponse { call_id: self.call_id }),
        }
    }
}

/// Parses one reply frame's body (the bytes after its 4-byte length).
///
/// Every length is checked against the bytes that remain; a reply whose response message
/// does not exactly fill the space before the cell block is refused.
pub fn parse_reply(body: Bytes) -> Result<Reply, FrameError> {
    let mut rest = body;
    let header_bytes = take_delimited(&mut rest, "response header")?;
    let header: pb::ResponseHeader = decode_message(header_bytes, "response header")?;
    let call_id = header.call_id.ok_or(FrameError::MissingCallId)?;
    if header.exception.is_some() {
        // Like HBase's own client: a failed call's reply ends with its header.
        return Ok(Reply { call_id, header, response: None, cell_block: Bytes::new() });
    }
    let cell_block_len = header.cell_block_meta.as_ref().and_then(|meta| meta.length).unwrap_or(0) as usize;
    if cell_block_len > rest.len() {
        return Err(FrameError::Truncated {
            part: "cell block",
            needed: cell_block_len as u64,
            remaining: rest.len() as u64,
        });
    }
    let mut response_part = rest.split_to(rest.len() - cell_block_len);
    let response = if response_part.is_empty() {
        None
    } else {
        let message = take_delimited(&mut response_part, "response")?;
        if !response_part.is_empty() {
            return Err(FrameError::TrailingBytes { part: "response", extra: response_part.len() as u64 });
        }
        Some(message)
    };
    Ok(Reply { call_id, header, response, cell_block: rest })
}

/// Turns the bytes arriving on a connection into whole [`Reply`]s.
///
/// Feed it the connection's read buffer: [`ReplyDecoder::decode`] takes one complete
/// frame off the front when there is one and leaves a partial frame in place. A frame
/// longer than the limit is refused before anything is buffered for it; after that
/// error the stream cannot be resynchronised and the connection must be closed. Any
/// other error concerns one complete frame, which has been consumed: the stream stays
/// in step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyDecoder {
    max_frame_len: usize,
}

impl ReplyDecoder {
    /// The default limit on one reply frame: 256 MiB.
    pub const DEFAULT_MAX_FRAME_LEN: usize = 256 << 20;

    /// A decoder with the default frame limit.
    pub fn new() -> Self {
        Self::with_max_frame_len(Self::DEFAULT_MAX_FRAME_LEN)
    }

    /// A decoder refusing frames longer than `max_frame_len` bytes (after the length);
    /// capped at what a Java peer can send.
    pub fn with_max_frame_len(max_frame_len: usize) -> Self {
        Self { max_frame_len: max_frame_len.min(crate::call::MAX_JAVA_FRAME_LEN) }
    }

    /// The frame limit in force.
    pub fn max_frame_len(&self) -> usize {
        self.max_frame_len
    }

    /// How long the frame at the front of `buf` is (after its 4-byte length), once its
    /// length has arrived; checked against the limit.
    pub fn frame_len(&self, buf: &[u8]) -> Result<Option<usize>, FrameError> {
        let Some(prefix) = buf.get(..4) else {
            return Ok(None);
        };
        let length = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
        match usize::try_from(length) {
            Ok(length) if length <= self.max_frame_len => Ok(Some(length)),
            _ => Err(FrameError::FrameTooLarge { length: u64::from(length as u32), max: self.max_frame_len as u64 }),
        }
    }

    /// Takes the next whole reply off the front of `buf`, or returns `None` when it has
    /// not fully arrived (the caller makes room for the rest: [`frame_len`](Self::frame_len)
    /// says how much).
    pub fn decode(&self, buf: &mut BytesMut) -> Result<Option<Reply>, FrameError> {
        let Some(length) = self.frame_len(buf)? else {
            return Ok(None);
        };
        if buf.len() < 4 + length {
            return Ok(None);
        }
        buf.advance(4);
        let body = buf.split_to(length).freeze();
        parse_reply(body).map(Some)
    }
}

impl Default for ReplyDecoder {
    fn default() -> Self {
        Self::new()
    }
}

/// Builds a reply frame the way a region server writes one (length, delimited header,
/// delimited response, cell block). For tests, fuzz seeds and fakes of the server side.
pub fn encode_reply<M: Message>(
    header: &pb::ResponseHeader,
    response: Option<&M>,
    cell_block: &[u8],
    out: &mut BytesMut,
) -> Result<(), FrameError> {
    use crate::varint::{delimited_len, put_delimited};
    use bytes::BufMut;
    let total = delimited_len(header) as u64
        + response.map_or(0, |message| delimited_len(message) as u64)
        + cell_block.len() as u64;
    let total = i32::try_from(total)
        .map_err(|_| FrameError::FrameTooLarge { length: total, max: crate::call::MAX_JAVA_FRAME_LEN as u64 })?;
    out.put_i32(total);
    put_delimited(header, "response header", out)?;
    if let Some(message) = response {
        put_delimited(message, "response", out)?;
    }
    out.put_slice(cell_block);
    Ok(())
}

#[cfg(test)]
#[path = "reply_tests.rs"]
mod tests;
