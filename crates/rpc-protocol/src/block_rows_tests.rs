use super::*;
use crate::cellblock::{decode_cell_block, encode_cell, CellParts};
use bytes::BytesMut;
use proptest::prelude::*;

/// A KeyValue-codec block of (row, qualifier, value, timestamp) cells in family `d`.
fn block(cells: &[(&str, &str, &str, i64)]) -> Bytes {
    let mut out = BytesMut::new();
    for (row, qualifier, value, timestamp) in cells {
        let parts = CellParts {
            row: row.as_bytes(),
            family: b"d",
            qualifier: qualifier.as_bytes(),
            timestamp: *timestamp,
            cell_type: CellType::Put,
            value: value.as_bytes(),
            tags: b"",
        };
        encode_cell(CellCodec::KeyValue, &parts, &mut out).unwrap();
    }
    out.freeze()
}

fn sample() -> Bytes {
    block(&[("r1", "a", "new", 2), ("r1", "a", "old", 1), ("r2", "b", "x", 7), ("r3", "", "", 9)])
}

#[test]
fn rows_view_the_block_in_the_announced_groups() {
    let block = sample();
    // A result of no cell (the 0) is left out.
    let rows = BlockRows::parse(block.clone(), CellCodec::KeyValue, &[2, 0, 1, 1], true).unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.stale() && !rows.is_empty());
    assert_eq!((rows.row_key(0), rows.row_key(1), rows.row_key(2)), (&b"r1"[..], &b"r2"[..], &b"r3"[..]));
    assert_eq!((rows.cell_count(0), rows.cell_count(1), rows.cell_count(2)), (2, 1, 1));
    let second = rows.cell(0, 1).unwrap();
    assert_eq!((second.family(), second.qualifier(), second.value()), (&b"d"[..], &b"a"[..], &b"old"[..]));
    assert_eq!((second.timestamp(), second.cell_type()), (1, CellType::Put));
    let empty = rows.cell(2, 0).unwrap();
    assert_eq!((empty.qualifier(), empty.value()), (&b""[..], &b""[..]));
    // Beyond the rows: empty answers, no panic.
    assert_eq!((rows.row_key(3), rows.cell_count(3)), (&b""[..], 0));
    assert!(rows.cell(0, 2).is_none() && rows.cell(9, 0).is_none());
    // The views point into the block, and the cells as `Cell`s equal the reader's.
    assert!(block.as_ptr_range().contains(&rows.row_key(1).as_ptr()));
    let key = rows.row_key_bytes(1);
    assert_eq!((&key[..], key.as_ptr()), (&b"r2"[..], rows.row_key(1).as_ptr()));
    assert!(rows.row_key_bytes(3).is_empty());
    // The rows' sizes add up to the block's (the empty result has none).
    assert_eq!((0..4).map(|row| rows.wire_len(row)).sum::<usize>(), block.len());
    let read = decode_cell_block(block, CellCodec::KeyValue).unwrap();
    let all: Vec<Cell> = (0..rows.len()).flat_map(|row| rows.cells(row).collect::<Vec<_>>()).collect();
    assert_eq!(all, read);
    assert_eq!(rows.cell(1, 0).unwrap().key_value(), &read[2].key_value()[..]);
}

#[test]
fn truncating_keeps_the_first_rows() {
    let block = sample();
    let mut rows = BlockRows::parse(block.clone(), CellCodec::KeyValue, &[2, 1, 1], false).unwrap();
    assert_eq!(rows.kept_len(), block.len());
    rows.truncate(1);
    assert_eq!(rows.kept_len(), rows.wire_len(0));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows.row_key(0), b"r1");
    assert_eq!(rows.cell_count(1), 0);
    rows.truncate(0);
    assert!(rows.is_empty());
    assert_eq!(rows.kept_len(), 0);
}

#[test]
fn a_zero_tags_length_is_part_of_the_cell() {
    // `KeyValueWithTags` writes no tags length without tags, but one of 0 is valid.
    let mut with_field = BytesMut::new();
    let parts = CellParts {
        row: b"r1",
        family: b"d",
        qualifier: b"q",
        timestamp: 1,
        cell_type: CellType::Put,
        value: b"v",
        tags: b"",
    };
    encode_cell(CellCodec::KeyValueWithTags, &parts, &mut with_field).unwrap();
    let mut bytes = with_field.to_vec();
    let total = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) + 2;
    bytes[..4].copy_from_slice(&total.to_be_bytes());
    bytes.extend_from_slice(&[0, 0]);
    let block = Bytes::from(bytes);
    let rows = BlockRows::parse(block.clone(), CellCodec::KeyValueWithTags, &[1], false).unwrap();
    let read = decode_cell_block(block.clone(), CellCodec::KeyValueWithTags).unwrap();
    assert_eq!(rows.cells(0).collect::<Vec<_>>(), read);
    assert_eq!(rows.cell(0, 0).unwrap().key_value(), &read[0].key_value()[..]);
    assert_eq!((rows.wire_len(0), rows.kept_len()), (block.len(), block.len()));
}

#[test]
fn counts_that_do_not_match_the_block_are_refused() {
    let block = sample();
    for counts in [&[2, 1][..], &[2, 1, 2], &[5], &[], &[u32::MAX, u32::MAX]] {
        let error = BlockRows::parse(block.clone(), CellCodec::KeyValue, counts, false).unwrap_err();
        assert!(matches!(error, CellBlockError::CellCountMismatch { .. }), "{counts:?}: {error}");
    }
    // A block cut anywhere is refused, never read past its end.
    for cut in 1..block.len() {
        assert!(BlockRows::parse(block.slice(..cut), CellCodec::KeyValue, &[2, 1, 1], false).is_err(), "cut {cut}");
    }
    // A bad cell inside is refused with the reader's error.
    let mut bad = block.to_vec();
    bad[4] = 0x80; // the first cell's key length turns negative
    let error = BlockRows::parse(Bytes::from(bad), CellCodec::KeyValue, &[2, 1, 1], false).unwrap_err();
    assert!(matches!(error, CellBlockError::Malformed { index: 0, .. }), "{error}");
}

#[test]
fn a_record_per_cell_stays_small() {
    assert!(std::mem::size_of::<CellAt>() <= 32, "a cell record takes {} bytes", std::mem::size_of::<CellAt>());
    assert!(std::mem::size_of::<RowAt>() <= 12, "a row record takes {} bytes", std::mem::size_of::<RowAt>());
}

proptest! {
    /// Whatever the bytes and the counts, parsing answers without panicking, and what
    /// it accepts agrees with the cell-by-cell reader.
    #[test]
    fn hostile_blocks_and_counts_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        counts in proptest::collection::vec(0u32..6, 0..6),
        cut in 0usize..400,
    ) {
        let mut real = sample().to_vec();
        real.truncate(cut.min(real.len()));
        for candidate in [Bytes::from(bytes), Bytes::from(real)] {
            if let Ok(rows) = BlockRows::parse(candidate.clone(), CellCodec::KeyValue, &counts, false) {
                let read = decode_cell_block(candidate, CellCodec::KeyValue).unwrap();
                let all: Vec<Cell> = (0..rows.len()).flat_map(|row| rows.cells(row).collect::<Vec<_>>()).collect();
                for row in 0..rows.len() {
                    let first = rows.cells(row).next().unwrap();
                    prop_assert_eq!(rows.row_key(row), first.row());
                }
                prop_assert_eq!(all, read);
            }
        }
    }
}
