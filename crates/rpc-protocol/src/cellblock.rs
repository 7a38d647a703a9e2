//! Cell blocks in HBase's KeyValue codec: encoding, zero-copy decoding, and splitting a
//! block's cells into the results they belong to.
//!
//! A block is a sequence of cells, each a 4-byte big-endian length and then a KeyValue:
//!
//! | part | size |
//! |---|---|
//! | key length | 4 |
//! | value length | 4 |
//! | row length | 2 |
//! | row | row length |
//! | family length | 1 |
//! | family | family length |
//! | qualifier | key length - 12 - row length - family length |
//! | timestamp | 8 |
//! | type | 1 |
//! | value | value length |
//! | tags length (`KeyValueCodecWithTags` only, and only when there are tags) | 2 |
//! | tags | tags length |
//!
//! All integers are big-endian. HBase's `KeyValueCodec` never sends tags.

use bytes::{Buf, Bytes, BytesMut};

use crate::error::CellBlockError;
use crate::varint::Filler;

/// The fixed part of a key: row length (2), family length (1), timestamp (8), type (1).
const KEY_INFRASTRUCTURE_LEN: u64 = 2 + 1 + 8 + 1;

/// The cell-block codecs this crate reads and writes (`ConnectionHeader.cell_block_codec_class`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellCodec {
    /// `org.apache.hadoop.hbase.codec.KeyValueCodec`: cells without tags.
    KeyValue,
    /// `org.apache.hadoop.hbase.codec.KeyValueCodecWithTags`: cells with their tags.
    KeyValueWithTags,
}

impl CellCodec {
    /// The Java class the server instantiates for this codec.
    pub fn java_class(self) -> &'static str {
        match self {
            CellCodec::KeyValue => "org.apache.hadoop.hbase.codec.KeyValueCodec",
            CellCodec::KeyValueWithTags => "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags",
        }
    }
}

/// A KeyValue's type byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellType {
    /// 0: sorts before every other type (used in search keys, not stored).
    Minimum,
    /// 4: a value.
    Put,
    /// 8: deletes one version of a column.
    Delete,
    /// 10: deletes one version of every column of a family.
    DeleteFamilyVersion,
    /// 12: deletes every version of a column up to the timestamp.
    DeleteColumn,
    /// 14: deletes every column of a family up to the timestamp.
    DeleteFamily,
    /// 255: sorts after every other type (used in search keys, not stored).
    Maximum,
}

impl CellType {
    /// The type's byte on the wire.
    pub fn code(self) -> u8 {
        match self {
            CellType::Minimum => 0,
            CellType::Put => 4,
            CellType::Delete => 8,
            CellType::DeleteFamilyVersion => 10,
            CellType::DeleteColumn => 12,
            CellType::DeleteFamily => 14,
            CellType::Maximum => 255,
        }
    }

    /// The type with this byte, if HBase defines one.
    pub fn from_code(code: u8) -> Option<CellType> {
        match code {
            0 => Some(CellType::Minimum),
            4 => Some(CellType::Put),
            8 => Some(CellType::Delete),
            10 => Some(CellType::DeleteFamilyVersion),
            12 => Some(CellType::DeleteColumn),
            14 => Some(CellType::DeleteFamily),
            255 => Some(CellType::Maximum),
            _ => None,
        }
    }
}

/// Where a KeyValue's parts lie: the lengths [`CellLayout::parse`] checked, kept in the
/// narrowest types HBase's limits allow (a row at most 32,767 bytes, a family 127, tags
/// 65,535, a key or value under 2 GiB), so a cell's record stays small and a page of
/// them touches less memory. Offsets are into the KeyValue (from its key length on, the
/// block's 4-byte cell length excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellLayout {
    timestamp: i64,
    qualifier_len: u32,
    value_len: u32,
    row_len: u16,
    tags_len: u16,
    family_len: u8,
    cell_type: CellType,
    /// The cell carries a tags length after its value (`KeyValueWithTags` writes one
    /// only when there are tags, but a length of 0 is read as well).
    has_tags_field: bool,
}

impl CellLayout {
    const ROW_START: usize = 4 + 4 + 2;

    fn family_start(&self) -> usize {
        Self::ROW_START + usize::from(self.row_len) + 1
    }

    fn qualifier_start(&self) -> usize {
        self.family_start() + usize::from(self.family_len)
    }

    fn value_start(&self) -> usize {
        self.qualifier_start() + self.qualifier_len as usize + 8 + 1
    }

    fn tags_start(&self) -> usize {
        self.value_start() + self.value_len as usize + 2
    }

    /// The KeyValue's length: its lengths, key, value and (when present) tags.
    pub fn key_value_len(&self) -> usize {
        let tags = if self.has_tags_field { 2 + usize::from(self.tags_len) } else { 0 };
        self.value_start() + self.value_len as usize + tags
    }

    /// The row key's range in the KeyValue.
    pub fn row_range(&self) -> std::ops::Range<usize> {
        Self::ROW_START..Self::ROW_START + usize::from(self.row_len)
    }

    /// The family's range in the KeyValue.
    pub fn family_range(&self) -> std::ops::Range<usize> {
        self.family_start()..self.family_start() + usize::from(self.family_len)
    }

    /// The qualifier's range in the KeyValue.
    pub fn qualifier_range(&self) -> std::ops::Range<usize> {
        self.qualifier_start()..self.qualifier_start() + self.qualifier_len as usize
    }

    /// The value's range in the KeyValue.
    pub fn value_range(&self) -> std::ops::Range<usize> {
        self.value_start()..self.value_start() + self.value_len as usize
    }

    /// The tags' range in the KeyValue (empty without tags).
    pub fn tags_range(&self) -> std::ops::Range<usize> {
        self.tags_start()..self.tags_start() + usize::from(self.tags_len)
    }

    /// The version's timestamp.
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    /// Put, or one of the delete markers.
    pub fn cell_type(&self) -> CellType {
        self.cell_type
    }

    /// Checks one KeyValue (without its 4-byte cell length) and says where its parts
    /// lie. `index` names the cell in errors.
    pub fn parse(key_value: &[u8], codec: CellCodec, index: usize) -> Result<CellLayout, CellBlockError> {
        let total = key_value.len() as u64;
        let mut reader = key_value;
        let truncated = |part: &'static str, needed: u64, remaining: usize| CellBlockError::Truncated {
            index,
            part,
            needed,
            remaining: remaining as u64,
        };
        let malformed = |reason: &'static str| CellBlockError::Malformed { index, reason };
        if reader.len() < 8 {
            return Err(truncated("key and value lengths", 8, reader.len()));
        }
        let key_len = u64::from(reader.get_u32());
        let value_len = u64::from(reader.get_u32());
        if key_len > i32::MAX as u64 || value_len > i32::MAX as u64 {
            return Err(malformed("negative key or value length"));
        }
        if key_len < KEY_INFRASTRUCTURE_LEN {
            return Err(malformed("key length shorter than a key's fixed parts"));
        }
        if 8 + key_len + value_len > total {
            return Err(truncated("key and value", key_len + value_len, reader.len()));
        }
        let mut key = &reader[..key_len as usize];
        let row_len = u64::from(key.get_u16());
        if row_len > i16::MAX as u64 {
            return Err(malformed("negative row length"));
        }
        if row_len + KEY_INFRASTRUCTURE_LEN > key_len {
            return Err(truncated("row", row_len, key.len()));
        }
        key.advance(row_len as usize);
        let family_len = u64::from(key.get_u8());
        if family_len > i8::MAX as u64 {
            return Err(malformed("negative family length"));
        }
        let qualifier_len = key_len
            .checked_sub(KEY_INFRASTRUCTURE_LEN + row_len + family_len)
            .ok_or_else(|| truncated("family", family_len, key.len()))?;
        key.advance((family_len + qualifier_len) as usize);
        let timestamp = key.get_i64();
        let type_byte = key.get_u8();
        let cell_type = CellType::from_code(type_byte).ok_or(CellBlockError::UnknownType { index, type_byte })?;
        let after_value = 8 + key_len + value_len;
        let rest = total - after_value;
        let tags_len = match (codec, rest) {
            (_, 0) => 0,
            (CellCodec::KeyValue, _) => return Err(malformed("bytes after the value")),
            (CellCodec::KeyValueWithTags, 1) => {
                return Err(truncated("tags length", 2, 1));
            }
            (CellCodec::KeyValueWithTags, _) => {
                let at = after_value as usize;
                let tags_len = u64::from(u16::from_be_bytes([key_value[at], key_value[at + 1]]));
                if tags_len != rest - 2 {
                    return Err(malformed("tags length does not match the cell's size"));
                }
                tags_len
            }
        };
        Ok(CellLayout {
            // Each bounded above (checked against HBase's limits and the block's size).
            timestamp,
            qualifier_len: qualifier_len as u32,
            value_len: value_len as u32,
            row_len: row_len as u16,
            tags_len: tags_len as u16,
            family_len: family_len as u8,
            cell_type,
            has_tags_field: rest != 0,
        })
    }
}

/// `range` of `bytes`, or empty if it does not fit (a layout is only ever applied to
/// the KeyValue it was parsed from; `get` keeps that promise visible without a panic
/// path).
pub(crate) fn part_of(bytes: &[u8], range: std::ops::Range<usize>) -> &[u8] {
    bytes.get(range).unwrap_or_default()
}

/// One cell of a block: a view over its KeyValue bytes, which it shares with the block
/// (cloning a `Cell` or taking one of its parts as [`Bytes`] copies nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The KeyValue, from its key length to its last byte (the block's 4-byte cell
    /// length excluded). Every range of the layout has been checked against it.
    key_value: Bytes,
    layout: CellLayout,
}

impl Cell {
    /// A cell of a KeyValue whose layout was parsed from those same bytes.
    pub(crate) fn from_layout(key_value: Bytes, layout: CellLayout) -> Cell {
        Cell { key_value, layout }
    }

    fn part_bytes(&self, range: std::ops::Range<usize>) -> Bytes {
        if range.is_empty() || range.end > self.key_value.len() {
            Bytes::new()
        } else {
            self.key_value.slice(range)
        }
    }

    /// The row key.
    pub fn row(&self) -> &[u8] {
        part_of(&self.key_value, self.layout.row_range())
    }

    /// The column family.
    pub fn family(&self) -> &[u8] {
        part_of(&self.key_value, self.layout.family_range())
    }

    /// The column qualifier (may be empty).
    pub fn qualifier(&self) -> &[u8] {
        part_of(&self.key_value, self.layout.qualifier_range())
    }

    /// The value.
    pub fn value(&self) -> &[u8] {
        part_of(&self.key_value, self.layout.value_range())
    }

    /// The tags (empty unless the codec carries tags and the cell has some).
    pub fn tags(&self) -> &[u8] {
        part_of(&self.key_value, self.layout.tags_range())
    }

    /// The row key, sharing the block's memory.
    pub fn row_bytes(&self) -> Bytes {
        self.part_bytes(self.layout.row_range())
    }

    /// The column family, sharing the block's memory.
    pub fn family_bytes(&self) -> Bytes {
        self.part_bytes(self.layout.family_range())
    }

    /// The column qualifier, sharing the block's memory.
    pub fn qualifier_bytes(&self) -> Bytes {
        self.part_bytes(self.layout.qualifier_range())
    }

    /// The value, sharing the block's memory.
    pub fn value_bytes(&self) -> Bytes {
        self.part_bytes(self.layout.value_range())
    }

    /// The version's timestamp.
    pub fn timestamp(&self) -> i64 {
        self.layout.timestamp
    }

    /// Put, or one of the delete markers.
    pub fn cell_type(&self) -> CellType {
        self.layout.cell_type
    }

    /// The KeyValue's bytes as they were in the block (without the cell's 4-byte length).
    pub fn key_value(&self) -> &Bytes {
        &self.key_value
    }

    /// Where the cell's parts lie in its KeyValue.
    pub fn layout(&self) -> CellLayout {
        self.layout
    }

    /// Parses one KeyValue (without its 4-byte cell length). `index` names the cell in
    /// errors.
    pub fn parse(key_value: Bytes, codec: CellCodec, index: usize) -> Result<Cell, CellBlockError> {
        let layout = CellLayout::parse(&key_value, codec, index)?;
        Ok(Cell { key_value, layout })
    }
}

/// Reads the cells of a block one by one, each a view sharing the block's memory.
/// After an error it yields nothing more.
#[derive(Debug, Clone)]
pub struct CellBlockReader {
    block: Bytes,
    codec: CellCodec,
    index: usize,
    failed: bool,
}

impl CellBlockReader {
    /// A reader over `block`, written in `codec`.
    pub fn new(block: Bytes, codec: CellCodec) -> Self {
        Self { block, codec, index: 0, failed: false }
    }

    fn next_cell(&mut self) -> Result<Cell, CellBlockError> {
        let index = self.index;
        let remaining = self.block.len();
        let Some(prefix) = self.block.get(..4) else {
            return Err(CellBlockError::Truncated {
                index,
                part: "cell length",
                needed: 4,
                remaining: remaining as u64,
            });
        };
        let length = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        if length > remaining - 4 {
            return Err(CellBlockError::Truncated {
                index,
                part: "cell",
                needed: length as u64,
                remaining: (remaining - 4) as u64,
            });
        }
        let mut cell = self.block.split_to(4 + length);
        cell.advance(4);
        self.index += 1;
        Cell::parse(cell, self.codec, index)
    }
}

impl Iterator for CellBlockReader {
    type Item = Result<Cell, CellBlockError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.block.is_empty() {
            return None;
        }
        let result = self.next_cell();
        self.failed = result.is_err();
        Some(result)
    }
}

/// Decodes every cell of `block`.
pub fn decode_cell_block(block: Bytes, codec: CellCodec) -> Result<Vec<Cell>, CellBlockError> {
    CellBlockReader::new(block, codec).collect()
}

/// The parts of a cell to encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellParts<'a> {
    /// The row key (at most 32,767 bytes).
    pub row: &'a [u8],
    /// The column family (at most 127 bytes).
    pub family: &'a [u8],
    /// The column qualifier.
    pub qualifier: &'a [u8],
    /// The version's timestamp.
    pub timestamp: i64,
    /// Put or a delete marker.
    pub cell_type: CellType,
    /// The value.
    pub value: &'a [u8],
    /// The tags (at most 65,535 bytes); written only by [`CellCodec::KeyValueWithTags`].
    pub tags: &'a [u8],
}

/// Appends one cell to a block in `codec`; on error nothing is appended.
pub fn encode_cell(codec: CellCodec, cell: &CellParts<'_>, out: &mut BytesMut) -> Result<(), CellBlockError> {
    let too_long =
        |part: &'static str, length: usize, max: u64| CellBlockError::TooLong { part, length: length as u64, max };
    let row_len = i16::try_from(cell.row.len()).map_err(|_| too_long("row", cell.row.len(), i16::MAX as u64))?;
    let family_len =
        i8::try_from(cell.family.len()).map_err(|_| too_long("family", cell.family.len(), i8::MAX as u64))?;
    let tags = match codec {
        CellCodec::KeyValue => &[][..],
        CellCodec::KeyValueWithTags => cell.tags,
    };
    let tags_len = u16::try_from(tags.len()).map_err(|_| too_long("tags", tags.len(), u64::from(u16::MAX)))?;
    let key_len =
        KEY_INFRASTRUCTURE_LEN + cell.row.len() as u64 + cell.family.len() as u64 + cell.qualifier.len() as u64;
    let tags_part = if tags.is_empty() { 0 } else { 2 + tags.len() as u64 };
    let total = 8 + key_len + cell.value.len() as u64 + tags_part;
    let limit = i32::MAX as u64;
    if total > limit {
        return Err(too_long("cell", total as usize, limit));
    }
    // One resize, then the fields copied in place: a block holds thousands of cells.
    let start = out.len();
    out.resize(start + 4 + total as usize, 0);
    let mut fill = Filler::at(out, start);
    fill.put(&(total as u32).to_be_bytes());
    fill.put(&(key_len as u32).to_be_bytes());
    fill.put(&(cell.value.len() as u32).to_be_bytes());
    fill.put(&row_len.to_be_bytes());
    fill.put(cell.row);
    fill.put(&family_len.to_be_bytes());
    fill.put(cell.family);
    fill.put(cell.qualifier);
    fill.put(&cell.timestamp.to_be_bytes());
    fill.byte(cell.cell_type.code());
    fill.put(cell.value);
    if !tags.is_empty() {
        fill.put(&tags_len.to_be_bytes());
        fill.put(tags);
    }
    debug_assert!(fill.is_full());
    Ok(())
}

/// Hands out the cells of a block in the groups a response announces (a scan's
/// `cells_per_result`, a multi's `associated_cell_count` per result).
#[derive(Debug, Clone)]
pub struct CellGroups<'a, T> {
    cells: &'a [T],
}

impl<'a, T> CellGroups<'a, T> {
    /// Groups over `cells`, in order.
    pub fn new(cells: &'a [T]) -> Self {
        Self { cells }
    }

    /// The next `count` cells; an error if fewer remain.
    pub fn take(&mut self, count: u64) -> Result<&'a [T], CellBlockError> {
        let present = self.cells.len() as u64;
        if count > present {
            return Err(CellBlockError::CellCountMismatch { announced: count, present });
        }
        let (group, rest) = self.cells.split_at(count as usize);
        self.cells = rest;
        Ok(group)
    }

    /// Checks that every cell was handed out.
    pub fn finish(self) -> Result<(), CellBlockError> {
        if self.cells.is_empty() {
            Ok(())
        } else {
            Err(CellBlockError::CellCountMismatch { announced: 0, present: self.cells.len() as u64 })
        }
    }
}

/// Splits a scan's cells into its results by `ScanResponse.cells_per_result`; the counts
/// must add up to exactly the cells present.
pub fn split_results<'a, T>(cells: &'a [T], cells_per_result: &[u32]) -> Result<Vec<&'a [T]>, CellBlockError> {
    let announced: u64 = cells_per_result.iter().map(|&count| u64::from(count)).sum();
    let present = cells.len() as u64;
    if announced != present {
        return Err(CellBlockError::CellCountMismatch { announced, present });
    }
    let mut groups = CellGroups::new(cells);
    let mut results = Vec::with_capacity(cells_per_result.len().min(cells.len() + 1));
    for &count in cells_per_result {
        results.push(groups.take(u64::from(count))?);
    }
    groups.finish()?;
    Ok(results)
}

#[cfg(test)]
#[path = "cellblock_tests.rs"]
mod tests;
