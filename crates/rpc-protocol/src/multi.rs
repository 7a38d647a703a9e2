//! A `MultiRequest` written field by field, straight into one buffer, without building
//! its prost structs: a batch of writes costs a few bytes of message per write and no
//! allocation per write. The bytes are those prost writes for the same message (fields
//! in tag order, optional fields only when set), as the tests check.
//!
//! Writes travel as HBase's Java client sends them (`RequestConverter
//! .buildNoDataRegionActions`): a data-free `MutationProto` whose
//! `associated_cell_count` cells follow in the call's cell block, in the order of the
//! actions.

use bytes::{BufMut, Bytes, BytesMut};
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, WireType};
use prost::Message;

use crate::pb;
use crate::varint::Filler;

/// The `MultiRequest` fields and those of the messages inside it that this writer sets.
mod tag {
    pub const MULTI_REGION_ACTION: u32 = 1;
    pub const MULTI_NONCE_GROUP: u32 = 2;
    pub const REGION_ACTION_REGION: u32 = 1;
    pub const REGION_ACTION_ACTION: u32 = 3;
    pub const SPECIFIER_TYPE: u32 = 1;
    pub const SPECIFIER_VALUE: u32 = 2;
    pub const ACTION_INDEX: u32 = 1;
    pub const ACTION_MUTATION: u32 = 2;
    pub const ACTION_GET: u32 = 3;
    pub const MUTATION_ROW: u32 = 1;
    pub const MUTATION_TYPE: u32 = 2;
    pub const MUTATION_TIMESTAMP: u32 = 4;
    pub const MUTATION_DURABILITY: u32 = 6;
    pub const MUTATION_CELL_COUNT: u32 = 8;
    pub const MUTATION_NONCE: u32 = 9;
}

/// A data-free `MutationProto`: what a write says beside its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MutationHead<'a> {
    /// The row.
    pub row: &'a [u8],
    /// Put, delete, increment or append.
    pub mutate_type: pb::mutation_proto::MutationType,
    /// The mutation's timestamp, if it has one.
    pub timestamp: Option<u64>,
    /// The WAL setting, if given.
    pub durability: Option<pb::mutation_proto::Durability>,
    /// How many cells of the cell block are this write's (`None` for none).
    pub associated_cell_count: Option<i32>,
    /// The nonce of an increment or append.
    pub nonce: Option<u64>,
}

/// One field's key and a varint value (an enum or integer field).
fn varint_field_len(tag: u32, value: u64) -> usize {
    prost::encoding::key_len(tag) + encoded_len_varint(value)
}

/// One field's key, length and `len` bytes (a bytes or message field).
fn bytes_field_len(tag: u32, len: usize) -> usize {
    prost::encoding::key_len(tag) + encoded_len_varint(len as u64) + len
}

/// An enum as protobuf writes it (an `int32`, sign-extended).
fn enum_value(value: i32) -> u64 {
    i64::from(value) as u64
}

impl MutationHead<'_> {
    fn encoded_len(&self) -> usize {
        bytes_field_len(tag::MUTATION_ROW, self.row.len())
            + varint_field_len(tag::MUTATION_TYPE, enum_value(self.mutate_type as i32))
            + self.timestamp.map_or(0, |ts| varint_field_len(tag::MUTATION_TIMESTAMP, ts))
            + self.durability.map_or(0, |d| varint_field_len(tag::MUTATION_DURABILITY, enum_value(d as i32)))
            + self.associated_cell_count.map_or(0, |n| varint_field_len(tag::MUTATION_CELL_COUNT, enum_value(n)))
            + self.nonce.map_or(0, |nonce| varint_field_len(tag::MUTATION_NONCE, nonce))
    }

    fn encode(&self, out: &mut Filler<'_>) {
        out.key(tag::MUTATION_ROW, WireType::LengthDelimited);
        out.varint(self.row.len() as u64);
        out.put(self.row);
        out.key(tag::MUTATION_TYPE, WireType::Varint);
        out.varint(enum_value(self.mutate_type as i32));
        if let Some(ts) = self.timestamp {
            out.key(tag::MUTATION_TIMESTAMP, WireType::Varint);
            out.varint(ts);
        }
        if let Some(durability) = self.durability {
            out.key(tag::MUTATION_DURABILITY, WireType::Varint);
            out.varint(enum_value(durability as i32));
        }
        if let Some(count) = self.associated_cell_count {
            out.key(tag::MUTATION_CELL_COUNT, WireType::Varint);
            out.varint(enum_value(count));
        }
        if let Some(nonce) = self.nonce {
            out.key(tag::MUTATION_NONCE, WireType::Varint);
            out.varint(nonce);
        }
    }
}

/// Writes a `MultiRequest`: [`region`](MultiWriter::region) opens a region action, then
/// its actions follow; [`finish`](MultiWriter::finish) gives the message.
#[derive(Debug, Default)]
pub struct MultiWriter {
    out: BytesMut,
    /// The open region action: its name, and its actions written so far.
    region_name: Bytes,
    actions: BytesMut,
    open: bool,
}

impl MultiWriter {
    /// An empty request.
    pub fn new() -> MultiWriter {
        MultiWriter::default()
    }

    /// An empty request with room for `actions` bytes of actions (in its regions'
    /// action lists: a batch knows roughly what its writes take).
    pub fn with_capacity(actions: usize) -> MultiWriter {
        MultiWriter::with_buffer(BytesMut::with_capacity(actions))
    }

    /// An empty request whose actions are written into `buffer` (emptied first): a
    /// buffer kept from an earlier request.
    pub fn with_buffer(mut buffer: BytesMut) -> MultiWriter {
        buffer.clear();
        MultiWriter { actions: buffer, ..MultiWriter::default() }
    }

    /// The bytes written so far, the open region's actions included (what
    /// [`append`](MultiWriter::append)ing it adds, but for its region's header).
    pub fn len(&self) -> usize {
        self.out.len() + self.actions.len()
    }

    /// Makes room for `additional` more bytes of regions (what
    /// [`append`](MultiWriter::append) adds).
    pub fn reserve(&mut self, additional: usize) {
        self.out.reserve(additional);
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Opens the action list of the region named `region_name` (closing the previous
    /// one; a region without actions is left out).
    pub fn region(&mut self, region_name: &Bytes) {
        self.close_region();
        self.region_name = region_name.clone();
        self.open = true;
    }

    /// Adds a write to the open region: sized once, then written in place (a batch
    /// writes thousands).
    pub fn mutation(&mut self, index: u32, mutation: &MutationHead<'_>) {
        let body_len = mutation.encoded_len();
        let action_len =
            varint_field_len(tag::ACTION_INDEX, u64::from(index)) + bytes_field_len(tag::ACTION_MUTATION, body_len);
        let start = self.actions.len();
        self.actions.resize(start + bytes_field_len(tag::REGION_ACTION_ACTION, action_len), 0);
        let mut out = Filler::at(&mut self.actions, start);
        out.key(tag::REGION_ACTION_ACTION, WireType::LengthDelimited);
        out.varint(action_len as u64);
        out.key(tag::ACTION_INDEX, WireType::Varint);
        out.varint(u64::from(index));
        out.key(tag::ACTION_MUTATION, WireType::LengthDelimited);
        out.varint(body_len as u64);
        mutation.encode(&mut out);
        debug_assert!(out.is_full());
    }

    /// Adds a get to the open region.
    pub fn get(&mut self, index: u32, get: &pb::Get) {
        let body_len = get.encoded_len();
        let action_len =
            varint_field_len(tag::ACTION_INDEX, u64::from(index)) + bytes_field_len(tag::ACTION_GET, body_len);
        let out = &mut self.actions;
        out.reserve(bytes_field_len(tag::REGION_ACTION_ACTION, action_len));
        encode_key(tag::REGION_ACTION_ACTION, WireType::LengthDelimited, out);
        encode_varint(action_len as u64, out);
        encode_key(tag::ACTION_INDEX, WireType::Varint, out);
        encode_varint(u64::from(index), out);
        encode_key(tag::ACTION_GET, WireType::LengthDelimited, out);
        encode_varint(body_len as u64, out);
        get.encode_raw(out);
    }

    /// Appends the regions of `other` (another request's actions, written apart).
    pub fn append(&mut self, other: MultiWriter) {
        self.close_region();
        self.out.extend_from_slice(&other.out);
        // The other's open region goes straight here (not through its own buffer).
        if other.open {
            write_region(&mut self.out, &other.region_name, &other.actions);
        }
    }

    fn close_region(&mut self) {
        if std::mem::take(&mut self.open) {
            write_region(&mut self.out, &self.region_name, &self.actions);
        }
        self.actions.clear();
    }

    /// The request, with `nonce_group` when given.
    pub fn finish(mut self, nonce_group: Option<u64>) -> EncodedMessage {
        self.close_region();
        if let Some(group) = nonce_group {
            encode_key(tag::MULTI_NONCE_GROUP, WireType::Varint, &mut self.out);
            encode_varint(group, &mut self.out);
        }
        EncodedMessage(self.out.freeze())
    }
}

/// The request written by `parts` one after the other, with `nonce_group` when given,
/// as pieces to send in order: what [`MultiWriter::finish`] gives for the same regions
/// once [`append`](MultiWriter::append)ed, but each part's open region sent from the
/// buffer its actions were written into (a batch's actions are not copied again).
pub fn multi_in_pieces(parts: Vec<MultiWriter>, nonce_group: Option<u64>) -> Vec<Bytes> {
    let mut pieces = Vec::with_capacity(parts.len() * 2 + 1);
    for mut part in parts {
        if !part.out.is_empty() {
            pieces.push(std::mem::take(&mut part.out).freeze());
        }
        if part.open && !part.actions.is_empty() {
            let mut head = BytesMut::new();
            write_region_head(&mut head, &part.region_name, part.actions.len());
            pieces.push(head.freeze());
            pieces.push(part.actions.freeze());
        }
    }
    if let Some(group) = nonce_group {
        let mut field = BytesMut::new();
        encode_key(tag::MULTI_NONCE_GROUP, WireType::Varint, &mut field);
        encode_varint(group, &mut field);
        pieces.push(field.freeze());
    }
    pieces
}

/// One region's action list, as a `RegionAction` of the request (nothing for a region
/// without actions).
fn write_region(out: &mut BytesMut, region_name: &[u8], actions: &[u8]) {
    if actions.is_empty() {
        return;
    }
    write_region_head(out, region_name, actions.len());
    out.put_slice(actions);
}

/// What precedes a region's `actions_len` bytes of actions in the request: the
/// `RegionAction` field's key and length, and the region's name.
fn write_region_head(out: &mut BytesMut, region_name: &[u8], actions_len: usize) {
    let kind = enum_value(pb::region_specifier::RegionSpecifierType::RegionName as i32);
    let specifier_len =
        varint_field_len(tag::SPECIFIER_TYPE, kind) + bytes_field_len(tag::SPECIFIER_VALUE, region_name.len());
    let region_len = bytes_field_len(tag::REGION_ACTION_REGION, specifier_len) + actions_len;
    out.reserve(bytes_field_len(tag::MULTI_REGION_ACTION, region_len));
    encode_key(tag::MULTI_REGION_ACTION, WireType::LengthDelimited, out);
    encode_varint(region_len as u64, out);
    encode_key(tag::REGION_ACTION_REGION, WireType::LengthDelimited, out);
    encode_varint(specifier_len as u64, out);
    encode_key(tag::SPECIFIER_TYPE, WireType::Varint, out);
    encode_varint(kind, out);
    encode_key(tag::SPECIFIER_VALUE, WireType::LengthDelimited, out);
    encode_varint(region_name.len() as u64, out);
    out.put_slice(region_name);
}

/// A message already encoded: sent as its bytes by anything that takes a
/// [`prost::Message`]. Write-only: decoding into one skips every field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncodedMessage(pub Bytes);

impl Message for EncodedMessage {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl bytes::Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
#[path = "multi_tests.rs"]
mod tests;
