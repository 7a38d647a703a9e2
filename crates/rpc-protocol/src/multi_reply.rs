//! A `MultiResponse` read in place: each region's answer and each action's, as slices
//! of the reply, without building the generated message.
//!
//! A batch of a thousand writes is answered by a thousand empty results; building the
//! generated `ResultOrException` for each (a few hundred bytes apiece, in a vector
//! that grows by copying) cost more than the rest of reading the reply. Here an
//! action's result and exception stay encoded until the caller asks for them, and a
//! write's empty result is never decoded at all.
//!
//! Every length is checked against the bytes that remain. As with the generated
//! decoder, unknown fields are skipped and a number sent twice keeps its last value
//! (the generated decoder would merge two halves of one message field; no server
//! sends them).

use bytes::Bytes;
use prost::Message;

use crate::error::FrameError;
use crate::pb;
use crate::varint::read_varint;

const PART: &str = "MultiResponse";

/// One action's answer: its index in the request and its result or exception, still
/// encoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionAnswer {
    /// The action's index in the request, if the server sent it.
    pub index: Option<u32>,
    /// The encoded `Result` (empty for a write's empty result), if any.
    pub result: Option<Bytes>,
    /// The encoded `NameBytesPair` of the action's exception, if any.
    pub exception: Option<Bytes>,
}

impl ActionAnswer {
    /// The result, decoded (`None` when the server sent none).
    pub fn decode_result(&self) -> Result<Option<pb::Result>, FrameError> {
        self.result.as_ref().map(|bytes| decode(bytes, "Result")).transpose()
    }

    /// The exception, decoded (`None` when the action succeeded).
    pub fn decode_exception(&self) -> Result<Option<pb::NameBytesPair>, FrameError> {
        self.exception.as_ref().map(|bytes| decode(bytes, "NameBytesPair")).transpose()
    }
}

/// One region's answer: its actions' answers, or the exception that failed the whole
/// region (still encoded).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegionAnswer {
    /// The actions' answers, in the order the server sent them.
    pub actions: Vec<ActionAnswer>,
    /// The encoded `NameBytesPair` of the region's exception, if any.
    pub exception: Option<Bytes>,
}

impl RegionAnswer {
    /// The region's exception, decoded (`None` when the region answered).
    pub fn decode_exception(&self) -> Result<Option<pb::NameBytesPair>, FrameError> {
        self.exception.as_ref().map(|bytes| decode(bytes, "NameBytesPair")).transpose()
    }
}

/// Reads a `MultiResponse` (the response message's bytes): one answer per region, in
/// the order sent. Byte fields are slices of `message`, not copies.
pub fn read_multi_response(message: &Bytes) -> Result<Vec<RegionAnswer>, FrameError> {
    let mut regions = Vec::new();
    for field in Fields::new(message) {
        match field? {
            (1, Value::Bytes(region)) => regions.push(read_region(&region)?),
            (_, Value::Varint(_) | Value::Bytes(_) | Value::Other) => {}
        }
    }
    Ok(regions)
}

fn read_region(message: &Bytes) -> Result<RegionAnswer, FrameError> {
    let mut region = RegionAnswer::default();
    for field in Fields::new(message) {
        match field? {
            (1, Value::Bytes(action)) => region.actions.push(read_action(&action)?),
            (2, Value::Bytes(exception)) => region.exception = Some(exception),
            (_, Value::Varint(_) | Value::Bytes(_) | Value::Other) => {}
        }
    }
    Ok(region)
}

fn read_action(message: &Bytes) -> Result<ActionAnswer, FrameError> {
    let mut action = ActionAnswer::default();
    let mut fields = Fields::new(message);
    while let Some(field) = fields.next_field(true) {
        match field? {
            (1, Value::Varint(index)) => action.index = Some(index as u32),
            (2, Value::Bytes(result)) => action.result = Some(result),
            (3, Value::Bytes(exception)) => action.exception = Some(exception),
            (_, Value::Varint(_) | Value::Bytes(_) | Value::Other) => {}
        }
    }
    Ok(action)
}

fn decode<M: Message + Default>(bytes: &Bytes, part: &'static str) -> Result<M, FrameError> {
    M::decode(bytes.clone()).map_err(|error| FrameError::Protobuf { part, reason: error.to_string() })
}

/// A field's value, as far as this reader needs it.
enum Value {
    /// A varint (only when asked for: see [`Fields::next_field`]).
    Varint(u64),
    /// A length-delimited field: a slice of the message.
    Bytes(Bytes),
    /// Anything else, skipped.
    Other,
}

/// The fields of one protobuf message, in order: `(field number, value)`.
struct Fields<'a> {
    message: &'a Bytes,
    at: usize,
}

impl<'a> Fields<'a> {
    fn new(message: &'a Bytes) -> Fields<'a> {
        Fields { message, at: 0 }
    }

    fn varint(&mut self) -> Result<u64, FrameError> {
        let rest = self.message.get(self.at..).unwrap_or_default();
        let (value, used) = read_varint(rest, PART)?;
        self.at += used;
        Ok(value)
    }

    fn skip(&mut self, len: u64) -> Result<(), FrameError> {
        let remaining = (self.message.len() - self.at) as u64;
        if len > remaining {
            return Err(FrameError::Truncated { part: PART, needed: len, remaining });
        }
        self.at += len as usize;
        Ok(())
    }

    /// The next field; varints are read as values when `varints` is set, else skipped.
    fn next_field(&mut self, varints: bool) -> Option<Result<(u32, Value), FrameError>> {
        if self.at >= self.message.len() {
            return None;
        }
        let result = self.read_field(varints);
        if result.is_err() {
            // Stop after the first error.
            self.at = self.message.len();
        }
        Some(result)
    }

    fn read_field(&mut self, varints: bool) -> Result<(u32, Value), FrameError> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).unwrap_or(0);
        if number == 0 {
            return Err(FrameError::Protobuf { part: PART, reason: "field number 0".into() });
        }
        match key & 7 {
            0 => {
                let value = self.varint()?;
                Ok((number, if varints { Value::Varint(value) } else { Value::Other }))
            }
            1 => self.skip(8).map(|()| (number, Value::Other)),
            2 => {
                let len = self.varint()?;
                let start = self.at;
                self.skip(len)?;
                Ok((number, Value::Bytes(self.message.slice(start..self.at))))
            }
            5 => self.skip(4).map(|()| (number, Value::Other)),
            wire => Err(FrameError::Protobuf { part: PART, reason: format!("wire type {wire}") }),
        }
    }
}

impl Iterator for Fields<'_> {
    type Item = Result<(u32, Value), FrameError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_field(false)
    }
}

#[cfg(test)]
#[path = "multi_reply_tests.rs"]
mod tests;
