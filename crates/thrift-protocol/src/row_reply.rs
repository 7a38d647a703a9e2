//! The zero-copy decoder of the replies that carry rows (`get`, `getMultiple`,
//! `getScannerRows`, `getScannerResults`).
//!
//! [`RowReplyDecoder`] is resumable: fed a buffer that grows as bytes arrive, it
//! decodes what has arrived and remembers where it stopped, so a buffered reply is
//! delimited and indexed in one pass. Its units of work are a header, one field, one
//! cell; a unit cut by the end of the buffer is redone once more bytes are there. If a
//! hostile reply makes redone work grow beyond a budget (huge unknown fields), it falls
//! back to finding the end first ([`MessageScanner`]) and decoding once.

use bytes::Bytes;

use crate::error::ReplyError;
use crate::message_scan::{MessageScanner, ScanError};
use crate::rows::{CellEntry, RowBatch, RowEntry, HAS_TYPE, NONE, PARTIAL, STALE};
use crate::wire::{malformed, Reader, WireError, WireResult, WireType};
use crate::{Protocol, RowsCall};

/// Which result the reply carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowCall {
    /// `get`: one `TResult`.
    Get,
    /// `getMultiple`, `getScannerResults`: `list<TResult>`, may throw `TIOError`.
    List,
    /// `getScannerRows`: `list<TResult>`, may throw `TIOError` or `TIllegalArgument`.
    ScannerRows,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Header,
    /// Next field of the result struct.
    ResultField,
    /// Inside the `TApplicationException` of an exception message.
    AppException,
    /// Between rows of the success list.
    Rows,
    /// Next field of a `TResult`.
    RowField,
    /// Between cells of a `TResult`'s `columnValues`.
    Cells,
    Done,
}

/// A declared failure read from the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Declared {
    Io { message: Option<String>, can_retry: Option<bool> },
    IllegalArgument { message: Option<String> },
    Application { kind: String, message: String },
}

/// Decodes one row-carrying reply, incrementally.
#[derive(Debug)]
pub(crate) struct RowReplyDecoder {
    protocol: Protocol,
    call: RowCall,
    method: &'static str,
    seq: i32,
    stage: Stage,
    pos: usize,
    result_last_id: i16,
    row_last_id: i16,
    rows_left: usize,
    cells_left: usize,
    row_has_cells: bool,
    has_success: bool,
    io: Option<Declared>,
    ia: Option<Declared>,
    app: Option<Declared>,
    rows: Vec<RowEntry>,
    cells: Vec<CellEntry>,
    /// Bytes walked by units that had to be redone.
    redone: usize,
    /// Redone work allowed beyond the buffer's size before falling back.
    redo_budget: usize,
    /// Set once redone work exceeded its budget: find the end first.
    fallback: Option<MessageScanner>,
}

/// Redone work allowed beyond the reply's own size before falling back.
const REDO_BUDGET: usize = 1 << 20;

/// Fewest bytes of a `TResult` (its required `columnValues`) and of a `TColumnValue`
/// (three required binaries) on the wire.
fn min_row_size(protocol: Protocol) -> usize {
    match protocol {
        Protocol::Binary => 9,
        Protocol::Compact => 3,
    }
}
fn min_cell_size(protocol: Protocol) -> usize {
    match protocol {
        Protocol::Binary => 22,
        Protocol::Compact => 7,
    }
}

fn pos32(pos: usize) -> WireResult<u32> {
    match u32::try_from(pos) {
        Ok(p) if p != NONE => Ok(p),
        _ => malformed("reply over 4 GiB: too large for the row decoder"),
    }
}

impl RowReplyDecoder {
    /// A decoder for the reply to call `method` number `seq`.
    pub(crate) fn new(protocol: Protocol, call: RowCall, method: &'static str, seq: i32) -> Self {
        RowReplyDecoder {
            protocol,
            call,
            method,
            seq,
            stage: Stage::Header,
            pos: 0,
            result_last_id: 0,
            row_last_id: 0,
            rows_left: 0,
            cells_left: 0,
            row_has_cells: false,
            has_success: false,
            io: None,
            ia: None,
            app: None,
            rows: Vec::new(),
            cells: Vec::new(),
            redone: 0,
            redo_budget: REDO_BUDGET,
            fallback: None,
        }
    }

    /// Decodes as far as `buf` allows. `buf` starts at the reply's first byte and may
    /// only grow between calls; the reply may not extend past `limit` bytes. Returns
    /// the reply's length once it is complete. When `complete` is set, `buf` is the
    /// whole reply and running out of bytes is an error.
    pub(crate) fn advance(&mut self, buf: &[u8], limit: usize, complete: bool) -> Result<Option<usize>, ReplyError> {
        let too_large = || {
            if complete {
                ReplyError::Malformed("reply declares more bytes than it holds".into())
            } else {
                ReplyError::TooLarge { limit, declared: None }
            }
        };
        let (buf, limit) = match &mut self.fallback {
            Some(scanner) => match scanner.advance(buf) {
                Ok(Some(end)) => (&buf[..end], end),
                Ok(None) if !complete => return Ok(None),
                Ok(None) => return Err(ReplyError::Malformed("reply ends early".into())),
                Err(ScanError::TooLarge { .. }) => return Err(too_large()),
                Err(ScanError::Malformed(what)) => return Err(ReplyError::Malformed(what.into())),
            },
            None => (buf, limit),
        };
        let finishing = complete || self.fallback.is_some();
        loop {
            if self.stage == Stage::Done {
                return Ok(Some(self.pos));
            }
            let mut reader = Reader::new(self.protocol, buf, self.pos, limit);
            match self.unit(&mut reader) {
                Ok(()) => self.pos = reader.pos,
                Err(WireError::Truncated) if finishing => {
                    return Err(ReplyError::Malformed(format!(
                        "reply ends early, inside the value at byte {}",
                        reader.pos
                    )))
                }
                Err(WireError::Truncated) => {
                    self.redone += reader.pos - self.pos;
                    if self.redone > buf.len() + self.redo_budget {
                        self.fallback = Some(MessageScanner::new(self.protocol, limit));
                        return self.advance(buf, limit, complete);
                    }
                    return Ok(None);
                }
                Err(WireError::TooLarge) => return Err(too_large()),
                Err(WireError::Malformed(what)) => return Err(ReplyError::Malformed(what)),
            }
        }
    }

    /// Turns the decoded reply (whose bytes are `reply`) into its rows or its error.
    pub(crate) fn finish(self, reply: Bytes) -> Result<RowBatch, ReplyError> {
        if self.stage != Stage::Done || reply.len() < self.pos {
            return Err(ReplyError::Malformed("reply incomplete".into()));
        }
        let declared = self.app.or(self.io).or(self.ia);
        match declared {
            Some(Declared::Io { message, can_retry }) => {
                Err(ReplyError::Server { message: message.unwrap_or_default(), can_retry })
            }
            Some(Declared::IllegalArgument { message }) => {
                Err(ReplyError::IllegalArgument { message: message.unwrap_or_default() })
            }
            Some(Declared::Application { kind, message }) => Err(ReplyError::Application { kind, message }),
            None if self.has_success => {
                Ok(RowBatch { buf: reply, protocol: self.protocol, rows: self.rows, cells: self.cells })
            }
            None => Err(ReplyError::Application {
                kind: "MissingResult".into(),
                message: format!("no result received for THBaseService{}", capitalized(self.method)),
            }),
        }
    }

    /// One unit of work; commits state only when it completes.
    fn unit(&mut self, r: &mut Reader<'_>) -> WireResult<()> {
        match self.stage {
            Stage::Header => self.header(r),
            Stage::ResultField => self.result_field(r),
            Stage::AppException => {
                self.app = Some(read_app_exception(r)?);
                self.stage = Stage::Done;
                Ok(())
            }
            Stage::Rows => {
                if self.rows_left == 0 {
                    self.stage = Stage::ResultField;
                } else {
                    self.rows_left -= 1;
                    self.start_row()?;
                }
                Ok(())
            }
            Stage::RowField => self.row_field(r),
            Stage::Cells => {
                if self.cells_left == 0 {
                    self.stage = Stage::RowField;
                } else {
                    let cell = read_cell(r)?;
                    self.cells_left -= 1;
                    self.cells.push(cell);
                }
                Ok(())
            }
            Stage::Done => Ok(()),
        }
    }

    fn header(&mut self, r: &mut Reader<'_>) -> WireResult<()> {
        let header = r.message_begin()?;
        if header.name != self.method.as_bytes() || header.seq != self.seq {
            return malformed(format!(
                "reply {}#{} does not answer call {}#{}",
                String::from_utf8_lossy(header.name),
                header.seq,
                self.method,
                self.seq
            ));
        }
        self.stage = match header.kind {
            2 => Stage::ResultField,
            3 => Stage::AppException,
            1 => return malformed("unexpected message type Call"),
            4 => return malformed("unexpected message type OneWay"),
            other => return malformed(format!("unknown message type {other}")),
        };
        Ok(())
    }

    fn result_field(&mut self, r: &mut Reader<'_>) -> WireResult<()> {
        let mut last_id = self.result_last_id;
        let Some(field) = r.field(&mut last_id)? else {
            self.stage = Stage::Done;
            return Ok(());
        };
        match (field.id, field.ty, self.call) {
            (0, WireType::Struct, RowCall::Get) => {
                self.rows.clear();
                self.cells.clear();
                self.has_success = true;
                self.start_row()?;
            }
            (0, WireType::List, RowCall::List | RowCall::ScannerRows) => {
                let list = r.list_begin()?;
                if list.count > 0 && list.elem != WireType::Struct {
                    return malformed(format!("result list of {:?}, expected structs", list.elem));
                }
                self.rows.clear();
                self.cells.clear();
                self.rows.reserve(list.count.min(r.available() / min_row_size(self.protocol)));
                self.rows_left = list.count;
                self.has_success = true;
                self.stage = Stage::Rows;
            }
            (0, ty, _) => return malformed(format!("result field 0 has wire type {ty:?}")),
            (1, WireType::Struct, _) => self.io = Some(read_exception(r, false)?),
            (2, WireType::Struct, RowCall::ScannerRows) => self.ia = Some(read_exception(r, true)?),
            (1, ty, _) => return malformed(format!("exception field 1 has wire type {ty:?}")),
            (_, ty, _) => r.skip(ty, Some(&field), 1)?,
        }
        self.result_last_id = last_id;
        Ok(())
    }

    fn start_row(&mut self) -> WireResult<()> {
        let first_cell = u32::try_from(self.cells.len()).or_else(|_| malformed("too many cells"))?;
        self.rows.push(RowEntry { key: NONE, first_cell, flags: 0 });
        self.row_last_id = 0;
        self.row_has_cells = false;
        self.stage = Stage::RowField;
        Ok(())
    }

    fn row_field(&mut self, r: &mut Reader<'_>) -> WireResult<()> {
        let mut last_id = self.row_last_id;
        let Some(field) = r.field(&mut last_id)? else {
            if !self.row_has_cells {
                return malformed("TResult without its required columnValues");
            }
            self.stage = if self.call == RowCall::Get { Stage::ResultField } else { Stage::Rows };
            return Ok(());
        };
        let protocol = self.protocol;
        let Some(row) = self.rows.last_mut() else {
            return malformed("row field outside a row");
        };
        match (field.id, field.ty) {
            (1, WireType::Binary) => {
                let prefix = pos32(r.pos)?;
                r.binary()?;
                row.key = prefix;
            }
            (2, WireType::List) => {
                let list = r.list_begin()?;
                if list.count > 0 && list.elem != WireType::Struct {
                    return malformed(format!("columnValues list of {:?}, expected structs", list.elem));
                }
                let first_cell = row.first_cell as usize;
                self.cells.truncate(first_cell);
                self.cells.reserve(list.count.min(r.available() / min_cell_size(protocol)));
                self.cells_left = list.count;
                self.row_has_cells = true;
                self.stage = Stage::Cells;
            }
            (3, WireType::Bool) => set_flag(&mut row.flags, STALE, r.bool(Some(&field))?),
            (4, WireType::Bool) => set_flag(&mut row.flags, PARTIAL, r.bool(Some(&field))?),
            (1..=4, ty) => return malformed(format!("TResult field {} has wire type {ty:?}", field.id)),
            (_, ty) => r.skip(ty, Some(&field), 2)?,
        }
        self.row_last_id = last_id;
        Ok(())
    }
}

fn set_flag(flags: &mut u8, bit: u8, on: bool) {
    if on {
        *flags |= bit;
    } else {
        *flags &= !bit;
    }
}

/// One `TColumnValue`, whole.
fn read_cell(r: &mut Reader<'_>) -> WireResult<CellEntry> {
    let mut cell = CellEntry { family: NONE, qualifier: NONE, value: NONE, timestamp: NONE, tags: NONE, cell_type: 0 };
    let mut last_id = 0;
    while let Some(field) = r.field(&mut last_id)? {
        let at = pos32(r.pos)?;
        match (field.id, field.ty) {
            (1, WireType::Binary) => {
                r.binary()?;
                cell.family = at;
            }
            (2, WireType::Binary) => {
                r.binary()?;
                cell.qualifier = at;
            }
            (3, WireType::Binary) => {
                r.binary()?;
                cell.value = at;
            }
            (4, WireType::I64) => {
                r.i64()?;
                cell.timestamp = at;
            }
            (5, WireType::Binary) => {
                r.binary()?;
                cell.tags = at;
            }
            (6, WireType::Byte) => cell.cell_type = HAS_TYPE | u16::from(r.byte()?),
            (1..=6, ty) => return malformed(format!("TColumnValue field {} has wire type {ty:?}", field.id)),
            (_, ty) => r.skip(ty, Some(&field), 4)?,
        }
    }
    if cell.family == NONE || cell.qualifier == NONE || cell.value == NONE {
        return malformed("TColumnValue without its required family, qualifier or value");
    }
    Ok(cell)
}

/// A `TIOError` (`illegal_argument == false`) or a `TIllegalArgument`.
fn read_exception(r: &mut Reader<'_>, illegal_argument: bool) -> WireResult<Declared> {
    let mut message = None;
    let mut can_retry = None;
    let mut last_id = 0;
    while let Some(field) = r.field(&mut last_id)? {
        match (field.id, field.ty) {
            (1, WireType::Binary) => message = Some(string(r)?),
            (2, WireType::Bool) if !illegal_argument => can_retry = Some(r.bool(Some(&field))?),
            (_, ty) => r.skip(ty, Some(&field), 2)?,
        }
    }
    Ok(if illegal_argument { Declared::IllegalArgument { message } } else { Declared::Io { message, can_retry } })
}

/// A `TApplicationException`: message (1) and type (2).
fn read_app_exception(r: &mut Reader<'_>) -> WireResult<Declared> {
    let mut message = "general remote error".to_owned();
    let mut kind = thrift::ApplicationErrorKind::Unknown;
    let mut last_id = 0;
    while let Some(field) = r.field(&mut last_id)? {
        match (field.id, field.ty) {
            (1, WireType::Binary) => message = string(r)?,
            (2, WireType::I32) => {
                kind = thrift::ApplicationErrorKind::try_from(r.i32()?).unwrap_or(thrift::ApplicationErrorKind::Unknown)
            }
            (_, ty) => r.skip(ty, Some(&field), 1)?,
        }
    }
    Ok(Declared::Application { kind: format!("{kind:?}"), message })
}

fn string(r: &mut Reader<'_>) -> WireResult<String> {
    let (start, len) = r.binary()?;
    let bytes = r.slice(start, len);
    String::from_utf8(bytes.to_vec()).or_else(|_| malformed("a string is not UTF-8"))
}

fn capitalized(method: &str) -> String {
    let mut chars = method.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Decodes one complete reply message (`reply` holds exactly that message, without a
/// frame length) to call `method` (`get`, `getMultiple`, `getScannerRows` or
/// `getScannerResults`) number `seq`, as a connection's row calls do. Declared exceptions and `TApplicationException`s give the same
/// [`ReplyError`]s as the calls.
pub fn decode_row_reply(protocol: Protocol, method: &str, seq: i32, reply: Bytes) -> Result<RowBatch, ReplyError> {
    RowReplyReader::new(protocol, method, seq)?.decode_complete(reply)
}

/// Reads one row-carrying reply incrementally, from a buffer that grows as bytes
/// arrive (buffered transport: the end of the reply is found and its rows indexed in
/// the same pass), or whole ([`Self::decode_complete`], framed transport).
#[derive(Debug)]
pub struct RowReplyReader {
    decoder: RowReplyDecoder,
}

impl RowReplyReader {
    /// A reader for the reply to call `method` (`get`, `getMultiple`,
    /// `getScannerRows` or `getScannerResults`) number `seq`.
    pub fn new(protocol: Protocol, method: &str, seq: i32) -> Result<RowReplyReader, ReplyError> {
        let (method, call) = row_call(method)?;
        Ok(RowReplyReader { decoder: RowReplyDecoder::new(protocol, call, method, seq) })
    }

    /// A reader for the reply to request type `C` number `seq`.
    pub fn for_call<C: RowsCall>(protocol: Protocol, seq: i32) -> Result<RowReplyReader, ReplyError> {
        RowReplyReader::new(protocol, C::METHOD, seq)
    }

    /// Reads as far as `buf` allows: `buf` starts at the reply's first byte and may only
    /// grow between calls; the reply may not exceed `limit` bytes
    /// ([`ReplyError::TooLarge`] as soon as it declares more). Returns the
    /// reply's length once it is complete, `None` while more bytes are needed.
    pub fn advance(&mut self, buf: &[u8], limit: usize) -> Result<Option<usize>, ReplyError> {
        self.decoder.advance(buf, limit, false)
    }

    /// The rows (or the declared error) of the complete reply, whose bytes are `reply`
    /// (the first `len` bytes of the buffer, `len` as returned by [`Self::advance`]).
    pub fn finish(self, reply: Bytes) -> Result<RowBatch, ReplyError> {
        self.decoder.finish(reply)
    }

    /// Decodes a reply that has arrived whole (`reply` is exactly the message, without
    /// a frame length): running out of bytes, or bytes after the message, are errors.
    pub fn decode_complete(mut self, reply: Bytes) -> Result<RowBatch, ReplyError> {
        match self.decoder.advance(&reply, reply.len(), true)? {
            Some(end) if end == reply.len() => self.decoder.finish(reply),
            Some(end) => Err(ReplyError::Malformed(format!("{} unexpected bytes after the reply", reply.len() - end))),
            None => Err(ReplyError::Malformed("reply ends early".into())),
        }
    }
}

fn row_call(method: &str) -> Result<(&'static str, RowCall), ReplyError> {
    Ok(match method {
        "get" => ("get", RowCall::Get),
        "getMultiple" => ("getMultiple", RowCall::List),
        "getScannerResults" => ("getScannerResults", RowCall::List),
        "getScannerRows" => ("getScannerRows", RowCall::ScannerRows),
        other => return Err(ReplyError::Malformed(format!("{other} replies carry no rows"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hbase::{TColumnValue, TResult};

    fn results(n: usize) -> Vec<TResult> {
        (0..n)
            .map(|i| {
                let cells = (0..i % 4)
                    .map(|q| {
                        TColumnValue::new(
                            b"d".to_vec(),
                            vec![b'a' + q as u8],
                            vec![i as u8; i * 37 % 300],
                            Some(i as i64),
                            None,
                            None,
                        )
                    })
                    .collect();
                TResult::new(format!("row-{i:04}").into_bytes(), cells, Some(i % 3 == 0), None)
            })
            .collect()
    }

    fn encode(protocol: Protocol, results: &[TResult]) -> Vec<u8> {
        crate::test_replies::reply(protocol, "getScannerRows", 7, crate::test_replies::Success::Many(results))
    }

    fn whole(protocol: Protocol, msg: &[u8]) -> Vec<crate::RowData> {
        decode_row_reply(protocol, "getScannerRows", 7, Bytes::copy_from_slice(msg)).unwrap().to_rows()
    }

    #[test]
    fn resumes_at_every_split_point() {
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let msg = encode(protocol, &results(12));
            let expected = whole(protocol, &msg);
            for split in 0..msg.len() {
                let mut decoder = RowReplyDecoder::new(protocol, RowCall::ScannerRows, "getScannerRows", 7);
                assert_eq!(decoder.advance(&msg[..split], 1 << 20, false).unwrap(), None, "{protocol:?} {split}");
                let mut longer = msg.clone();
                longer.extend_from_slice(b"more");
                assert_eq!(decoder.advance(&longer, 1 << 20, false).unwrap(), Some(msg.len()));
                assert_eq!(decoder.finish(Bytes::from(longer)).unwrap().to_rows(), expected);
            }
        }
    }

    #[test]
    fn byte_by_byte_falls_back_to_one_scan_and_still_decodes() {
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let msg = encode(protocol, &results(30));
            for budget in [0, REDO_BUDGET] {
                let mut decoder = RowReplyDecoder::new(protocol, RowCall::ScannerRows, "getScannerRows", 7);
                decoder.redo_budget = budget;
                for end in 0..msg.len() {
                    assert_eq!(decoder.advance(&msg[..end], 1 << 20, false).unwrap(), None);
                }
                assert_eq!(decoder.fallback.is_some(), budget == 0, "{protocol:?}");
                assert_eq!(decoder.advance(&msg, 1 << 20, false).unwrap(), Some(msg.len()));
                assert_eq!(decoder.finish(Bytes::from(msg.clone())).unwrap().to_rows(), whole(protocol, &msg));
            }
        }
    }

    #[test]
    fn a_growing_reply_over_the_limit_is_refused_before_it_arrives() {
        let msg = encode(Protocol::Binary, &results(40));
        let mut decoder = RowReplyDecoder::new(Protocol::Binary, RowCall::ScannerRows, "getScannerRows", 7);
        let err = decoder.advance(&msg, msg.len() - 1, false).unwrap_err();
        assert!(matches!(err, ReplyError::TooLarge { declared: None, .. }), "{err:?}");
    }
}
