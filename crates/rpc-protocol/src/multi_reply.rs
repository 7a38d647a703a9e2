//! A `MultiResponse` read in place: each region's answer and each action's, as
//! positions in the reply, without building the generated message.
//!
//! A batch of a thousand writes is answered by a thousand empty results; building the
//! generated `ResultOrException` for each (a few hundred bytes apiece, in a vector
//! that grows by copying) cost more than the rest of reading the reply. Here an
//! action's result and exception stay encoded until the caller asks for them, and a
//! write's empty result is never decoded at all.
//!
//! Answers hold where their bytes lie, not slices: reading a thousand answers touches
//! no reference count. Every length is checked against the bytes that remain. As with
//! the generated decoder, unknown fields are skipped and a number sent twice keeps its
//! last value (the generated decoder would merge two halves of one message field; no
//! server sends them).

use bytes::Bytes;
use prost::Message;

use crate::error::FrameError;
use crate::pb;
use crate::varint::read_varint;

const PART: &str = "MultiResponse";

/// Action answers a region's list makes room for before reading them.
const MAX_ANSWERS_RESERVED: usize = 4096;

/// Where a field's bytes lie in the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// One action's answer: its index in the request, and where its result and exception
/// lie in the reply (read them through [`MultiReply`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ActionAnswer {
    /// The action's index in the request, if the server sent it.
    pub index: Option<u32>,
    result: Option<Span>,
    exception: Option<Span>,
}

impl ActionAnswer {
    /// Whether the server sent a result with something in it (a write's result is
    /// empty).
    pub fn has_result_fields(&self) -> bool {
        self.result.is_some_and(|span| span.end > span.start)
    }

    /// Whether the action failed.
    pub fn has_exception(&self) -> bool {
        self.exception.is_some()
    }
}

/// One region's answer: its actions' answers, or the exception that failed the whole
/// region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionAnswer {
    /// The actions' answers, in the order the server sent them.
    pub actions: Vec<ActionAnswer>,
    exception: Option<Span>,
}

/// A `MultiResponse`, read in place: one answer per region, in the order sent, whose
/// results and exceptions are decoded only when asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MultiReply {
    message: Bytes,
    /// The regions' answers.
    pub regions: Vec<RegionAnswer>,
}

impl MultiReply {
    /// Reads a `MultiResponse` (the response message's bytes).
    pub fn read(message: Bytes) -> Result<MultiReply, FrameError> {
        let mut regions = Vec::new();
        let mut fields = Fields::new(&message, Span { start: 0, end: message.len() });
        while let Some(field) = fields.next_field() {
            match field? {
                (1, Value::Bytes(region)) => regions.push(read_region(&message, region)?),
                (_, Value::Varint(_) | Value::Bytes(_) | Value::Other) => {}
            }
        }
        Ok(MultiReply { message, regions })
    }

    /// An action's result, decoded (`None` when the server sent none).
    pub fn result(&self, action: &ActionAnswer) -> Result<Option<pb::Result>, FrameError> {
        action.result.map(|span| self.decode(span, "Result")).transpose()
    }

    /// An action's exception, decoded (`None` when the action succeeded).
    pub fn action_exception(&self, action: &ActionAnswer) -> Result<Option<pb::NameBytesPair>, FrameError> {
        action.exception.map(|span| self.decode(span, "NameBytesPair")).transpose()
    }

    /// A region's exception, decoded (`None` when the region answered).
    pub fn region_exception(&self, region: &RegionAnswer) -> Result<Option<pb::NameBytesPair>, FrameError> {
        region.exception.map(|span| self.decode(span, "NameBytesPair")).transpose()
    }

    fn decode<M: Message + Default>(&self, span: Span, part: &'static str) -> Result<M, FrameError> {
        M::decode(self.message.slice(span.start..span.end))
            .map_err(|error| FrameError::Protobuf { part, reason: error.to_string() })
    }
}

fn read_region(message: &[u8], span: Span) -> Result<RegionAnswer, FrameError> {
    let mut region = RegionAnswer::default();
    // A write's answer takes six bytes or more: room for as many as the span can hold,
    // so the list does not grow by copying; at most 4,096 up front (an answer is 56
    // bytes here: a span of other fields must not reserve nine times its size).
    region.actions.reserve((span.end.saturating_sub(span.start) / 6).min(MAX_ANSWERS_RESERVED));
    let mut fields = Fields::new(message, span);
    while let Some(field) = fields.next_field() {
        match field? {
            (1, Value::Bytes(action)) => region.actions.push(read_action(message, action)?),
            (2, Value::Bytes(exception)) => region.exception = Some(exception),
            (_, Value::Varint(_) | Value::Bytes(_) | Value::Other) => {}
        }
    }
    Ok(region)
}

fn read_action(message: &[u8], span: Span) -> Result<ActionAnswer, FrameError> {
    if let Some(answer) = write_answer(message, span) {
        return Ok(answer);
    }
    let mut action = ActionAnswer::default();
    let mut fields = Fields::new(message, span);
    while let Some(field) = fields.next_field() {
        match field? {
            // A uint32 field, read as the generated decoder reads it (the low 32 bits).
            (1, Value::Varint(index)) => action.index = Some(index as u32),
            (2, Value::Bytes(result)) => action.result = Some(result),
            (3, Value::Bytes(exception)) => action.exception = Some(exception),
            (_, Value::Varint(_) | Value::Bytes(_) | Value::Other) => {}
        }
    }
    Ok(action)
}

/// The answer of a write that succeeded, as region servers send it: its index (field
/// 1, a varint of at most five bytes) then an empty result (field 2, length 0), and
/// nothing else. Any other shape is left to the field-by-field reader.
fn write_answer(message: &[u8], span: Span) -> Option<ActionAnswer> {
    let bytes = message.get(span.start..span.end)?;
    let (&first, rest) = bytes.split_first()?;
    if first != 0x08 || rest.len() < 3 || rest.len() > 7 {
        return None;
    }
    let (index_bytes, tail) = rest.split_at(rest.len() - 2);
    let (&last, lead) = index_bytes.split_last()?;
    if tail != [0x12, 0x00] || last & 0x80 != 0 || lead.iter().any(|b| b & 0x80 == 0) {
        return None;
    }
    let index = index_bytes.iter().rev().fold(0u64, |value, b| value << 7 | u64::from(b & 0x7f));
    let end = span.end;
    Some(ActionAnswer { index: Some(index as u32), result: Some(Span { start: end, end }), exception: None })
}

/// A field's value, as far as this reader needs it.
enum Value {
    Varint(u64),
    /// A length-delimited field: where its bytes lie.
    Bytes(Span),
    /// A fixed-width field, skipped.
    Other,
}

/// The fields of one protobuf message (the bytes of `message` in a span), in order:
/// `(field number, value)`.
struct Fields<'a> {
    message: &'a [u8],
    at: usize,
    end: usize,
}

impl<'a> Fields<'a> {
    fn new(message: &'a [u8], span: Span) -> Fields<'a> {
        Fields { message, at: span.start, end: span.end.min(message.len()) }
    }

    fn varint(&mut self) -> Result<u64, FrameError> {
        let rest = self.message.get(self.at..self.end).unwrap_or_default();
        let (value, used) = read_varint(rest, PART)?;
        self.at += used;
        Ok(value)
    }

    fn skip(&mut self, len: u64) -> Result<(), FrameError> {
        let remaining = self.end.saturating_sub(self.at) as u64;
        if len > remaining {
            return Err(FrameError::Truncated { part: PART, needed: len, remaining });
        }
        self.at += len as usize;
        Ok(())
    }

    /// The next field (after an error, none).
    fn next_field(&mut self) -> Option<Result<(u32, Value), FrameError>> {
        if self.at >= self.end {
            return None;
        }
        let result = self.read_field();
        if result.is_err() {
            self.at = self.end;
        }
        Some(result)
    }

    fn read_field(&mut self) -> Result<(u32, Value), FrameError> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).unwrap_or(0);
        if number == 0 {
            return Err(FrameError::Protobuf { part: PART, reason: "field number 0".into() });
        }
        match key & 7 {
            0 => Ok((number, Value::Varint(self.varint()?))),
            1 => self.skip(8).map(|()| (number, Value::Other)),
            2 => {
                let len = self.varint()?;
                let start = self.at;
                self.skip(len)?;
                Ok((number, Value::Bytes(Span { start, end: self.at })))
            }
            5 => self.skip(4).map(|()| (number, Value::Other)),
            wire => Err(FrameError::Protobuf { part: PART, reason: format!("wire type {wire}") }),
        }
    }
}

#[cfg(test)]
#[path = "multi_reply_tests.rs"]
mod tests;
