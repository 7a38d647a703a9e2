use super::*;
use proptest::prelude::*;

/// One KeyValue-codec cell written byte by byte from the format's table.
fn hand_made_cell() -> Vec<u8> {
    let mut kv = Vec::new();
    let key_len: u32 = 2 + 3 + 1 + 2 + 1 + 8 + 1; // row "row", family "cf", qualifier "q"
    kv.extend_from_slice(&key_len.to_be_bytes());
    kv.extend_from_slice(&5u32.to_be_bytes()); // value length
    kv.extend_from_slice(&3u16.to_be_bytes());
    kv.extend_from_slice(b"row");
    kv.push(2);
    kv.extend_from_slice(b"cf");
    kv.extend_from_slice(b"q");
    kv.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    kv.push(4); // Put
    kv.extend_from_slice(b"value");
    let mut cell = (kv.len() as u32).to_be_bytes().to_vec();
    cell.extend_from_slice(&kv);
    cell
}

#[test]
fn reads_a_hand_made_cell() {
    let block = Bytes::from(hand_made_cell());
    let cells = decode_cell_block(block.clone(), CellCodec::KeyValue).unwrap();
    assert_eq!(cells.len(), 1);
    let cell = &cells[0];
    assert_eq!(cell.row(), b"row");
    assert_eq!(cell.family(), b"cf");
    assert_eq!(cell.qualifier(), b"q");
    assert_eq!(cell.value(), b"value");
    assert_eq!(cell.tags(), b"");
    assert_eq!(cell.timestamp(), 1_700_000_000_000);
    assert_eq!(cell.cell_type(), CellType::Put);
    // The parts share the block's memory.
    let value = cell.value_bytes();
    let block_range = block.as_ptr() as usize..block.as_ptr() as usize + block.len();
    assert!(block_range.contains(&(value.as_ptr() as usize)));
}

#[test]
fn parts_at_their_largest_read_back_whole() {
    // Each part at the most its length field allows (the qualifier and value past
    // 65,535 bytes): the cell's narrow length fields hold them.
    let (row, family, qualifier) = (vec![b'r'; 32_767], vec![b'f'; 127], vec![b'q'; 70_000]);
    let (value, tags) = (vec![b'v'; 1 << 20], vec![b't'; 65_535]);
    let parts = CellParts {
        row: &row,
        family: &family,
        qualifier: &qualifier,
        timestamp: i64::MAX,
        cell_type: CellType::DeleteFamilyVersion,
        value: &value,
        tags: &tags,
    };
    let mut out = BytesMut::new();
    encode_cell(CellCodec::KeyValueWithTags, &parts, &mut out).unwrap();
    let cells = decode_cell_block(out.freeze(), CellCodec::KeyValueWithTags).unwrap();
    let cell = &cells[0];
    assert_eq!((cell.row(), cell.family(), cell.qualifier()), (&row[..], &family[..], &qualifier[..]));
    assert_eq!((cell.value(), cell.tags()), (&value[..], &tags[..]));
    assert_eq!((cell.timestamp(), cell.cell_type()), (i64::MAX, CellType::DeleteFamilyVersion));
    assert_eq!(cell.value_bytes().len(), value.len());
    assert!(std::mem::size_of::<Cell>() <= 56, "a cell takes {} bytes", std::mem::size_of::<Cell>());
}

#[test]
fn encoder_writes_the_same_bytes_as_the_hand_made_cell() {
    let mut out = BytesMut::new();
    encode_cell(
        CellCodec::KeyValue,
        &CellParts {
            row: b"row",
            family: b"cf",
            qualifier: b"q",
            timestamp: 1_700_000_000_000,
            cell_type: CellType::Put,
            value: b"value",
            tags: b"ignored without tags",
        },
        &mut out,
    )
    .unwrap();
    assert_eq!(&out[..], &hand_made_cell()[..]);
}

#[test]
fn tags_follow_the_value_with_their_length() {
    let parts = CellParts {
        row: b"r",
        family: b"f",
        qualifier: b"",
        timestamp: 5,
        cell_type: CellType::DeleteColumn,
        value: b"",
        tags: b"\x01\x00\x02ab",
    };
    let mut out = BytesMut::new();
    encode_cell(CellCodec::KeyValueWithTags, &parts, &mut out).unwrap();
    assert_eq!(&out[out.len() - 7..], b"\x00\x05\x01\x00\x02ab");
    let cells = decode_cell_block(out.clone().freeze(), CellCodec::KeyValueWithTags).unwrap();
    assert_eq!(cells[0].tags(), parts.tags);
    assert_eq!(cells[0].cell_type(), CellType::DeleteColumn);
    // Without the tags codec those bytes are not allowed.
    assert!(matches!(
        decode_cell_block(out.freeze(), CellCodec::KeyValue),
        Err(CellBlockError::Malformed { index: 0, .. })
    ));
}

#[test]
fn every_truncation_of_a_cell_is_an_error() {
    let full = hand_made_cell();
    for cut in 1..full.len() {
        let result = decode_cell_block(Bytes::copy_from_slice(&full[..cut]), CellCodec::KeyValue);
        assert!(matches!(result, Err(CellBlockError::Truncated { index: 0, .. })), "cut at {cut}: {result:?}");
    }
}

#[test]
fn inconsistent_lengths_are_typed_errors() {
    let full = hand_made_cell();
    // Row length larger than the key.
    let mut bad_row = full.clone();
    bad_row[12..14].copy_from_slice(&200u16.to_be_bytes());
    assert!(matches!(
        decode_cell_block(bad_row.into(), CellCodec::KeyValue),
        Err(CellBlockError::Truncated { part: "row", .. })
    ));
    // A negative (as Java reads it) row length.
    let mut negative_row = full.clone();
    negative_row[12..14].copy_from_slice(&0x8000u16.to_be_bytes());
    assert!(matches!(
        decode_cell_block(negative_row.into(), CellCodec::KeyValue),
        Err(CellBlockError::Malformed { .. })
    ));
    // Family length eating into the timestamp.
    let mut bad_family = full.clone();
    bad_family[17] = 100;
    assert!(matches!(
        decode_cell_block(bad_family.into(), CellCodec::KeyValue),
        Err(CellBlockError::Truncated { part: "family", .. })
    ));
    // Key length below the fixed parts.
    let mut short_key = full.clone();
    short_key[4..8].copy_from_slice(&3u32.to_be_bytes());
    assert!(matches!(decode_cell_block(short_key.into(), CellCodec::KeyValue), Err(CellBlockError::Malformed { .. })));
    // An unknown type byte.
    let mut bad_type = full.clone();
    let type_at = full.len() - 5 - 1;
    bad_type[type_at] = 7;
    assert_eq!(
        decode_cell_block(bad_type.into(), CellCodec::KeyValue),
        Err(CellBlockError::UnknownType { index: 0, type_byte: 7 })
    );
    // A cell length beyond the block.
    let mut long_cell = full;
    long_cell[0..4].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(matches!(
        decode_cell_block(long_cell.into(), CellCodec::KeyValue),
        Err(CellBlockError::Truncated { part: "cell", .. })
    ));
}

#[test]
fn reader_stops_after_an_error() {
    let mut block = hand_made_cell();
    block.extend_from_slice(&[0, 0]);
    block.extend_from_slice(&hand_made_cell());
    let mut reader = CellBlockReader::new(block.into(), CellCodec::KeyValue);
    assert!(reader.next().unwrap().is_ok());
    assert!(reader.next().unwrap().is_err());
    assert!(reader.next().is_none());
}

#[test]
fn encoder_refuses_parts_too_long_for_the_format() {
    let long_row = vec![0u8; 40_000];
    let long_family = vec![0u8; 128];
    let mut out = BytesMut::new();
    let base = CellParts {
        row: b"r",
        family: b"f",
        qualifier: b"q",
        timestamp: 0,
        cell_type: CellType::Put,
        value: b"",
        tags: b"",
    };
    let row = CellParts { row: &long_row, ..base };
    assert!(matches!(
        encode_cell(CellCodec::KeyValue, &row, &mut out),
        Err(CellBlockError::TooLong { part: "row", .. })
    ));
    let family = CellParts { family: &long_family, ..base };
    assert!(matches!(
        encode_cell(CellCodec::KeyValue, &family, &mut out),
        Err(CellBlockError::TooLong { part: "family", .. })
    ));
    assert!(out.is_empty());
}

#[test]
fn results_split_by_cells_per_result() {
    let cells = [1, 2, 3, 4, 5, 6];
    let results = split_results(&cells, &[2, 1, 3]).unwrap();
    assert_eq!(results, vec![&[1, 2][..], &[3][..], &[4, 5, 6][..]]);
    assert_eq!(split_results(&cells, &[2, 1]), Err(CellBlockError::CellCountMismatch { announced: 3, present: 6 }));
    assert_eq!(
        split_results(&cells, &[u32::MAX, u32::MAX]),
        Err(CellBlockError::CellCountMismatch { announced: 2 * u64::from(u32::MAX), present: 6 })
    );
    let mut groups = CellGroups::new(&cells);
    assert_eq!(groups.take(4).unwrap(), &[1, 2, 3, 4]);
    assert!(groups.clone().finish().is_err());
    assert!(groups.take(3).is_err());
    assert_eq!(groups.take(2).unwrap(), &[5, 6]);
    assert!(groups.finish().is_ok());
}

fn cell_type() -> impl Strategy<Value = CellType> {
    prop_oneof![
        Just(CellType::Minimum),
        Just(CellType::Put),
        Just(CellType::Delete),
        Just(CellType::DeleteFamilyVersion),
        Just(CellType::DeleteColumn),
        Just(CellType::DeleteFamily),
        Just(CellType::Maximum),
    ]
}

type OwnedCell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>, Vec<u8>);

fn owned_cell() -> impl Strategy<Value = OwnedCell> {
    let bytes = |max| proptest::collection::vec(any::<u8>(), 0..max);
    (bytes(40), bytes(10), bytes(40), any::<i64>(), cell_type(), bytes(80), bytes(20))
}

proptest! {
    #[test]
    fn blocks_round_trip(
        cells in proptest::collection::vec(owned_cell(), 0..8),
        with_tags in any::<bool>(),
    ) {
        let codec = if with_tags { CellCodec::KeyValueWithTags } else { CellCodec::KeyValue };
        let mut out = BytesMut::new();
        for (row, family, qualifier, timestamp, cell_type, value, tags) in &cells {
            let parts = CellParts { row, family, qualifier, timestamp: *timestamp, cell_type: *cell_type, value, tags };
            encode_cell(codec, &parts, &mut out).unwrap();
        }
        let decoded = decode_cell_block(out.freeze(), codec).unwrap();
        prop_assert_eq!(decoded.len(), cells.len());
        for (cell, (row, family, qualifier, timestamp, cell_type, value, tags)) in decoded.iter().zip(&cells) {
            prop_assert_eq!(cell.row(), &row[..]);
            prop_assert_eq!(cell.family(), &family[..]);
            prop_assert_eq!(cell.qualifier(), &qualifier[..]);
            prop_assert_eq!(cell.timestamp(), *timestamp);
            prop_assert_eq!(cell.cell_type(), *cell_type);
            prop_assert_eq!(cell.value(), &value[..]);
            prop_assert_eq!(&cell.value_bytes()[..], &value[..]);
            let expected_tags: &[u8] = if with_tags { tags } else { &[] };
            prop_assert_eq!(cell.tags(), expected_tags);
        }
    }

    #[test]
    fn hostile_blocks_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200), with_tags in any::<bool>()) {
        let codec = if with_tags { CellCodec::KeyValueWithTags } else { CellCodec::KeyValue };
        for cell in CellBlockReader::new(data.into(), codec).flatten() {
            let _ = (cell.row(), cell.family(), cell.qualifier(), cell.value(), cell.tags());
            let _ = (cell.row_bytes(), cell.family_bytes(), cell.qualifier_bytes(), cell.value_bytes());
        }
    }

    #[test]
    fn corrupted_blocks_never_panic(
        cell in owned_cell(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let (row, family, qualifier, timestamp, cell_type, value, tags) = &cell;
        let parts = CellParts { row, family, qualifier, timestamp: *timestamp, cell_type: *cell_type, value, tags };
        let mut out = BytesMut::new();
        encode_cell(CellCodec::KeyValueWithTags, &parts, &mut out).unwrap();
        let mut bytes = out.to_vec();
        for (index, byte) in flips {
            let at = index.index(bytes.len());
            bytes[at] = byte;
        }
        for cell in CellBlockReader::new(bytes.into(), CellCodec::KeyValueWithTags).flatten() {
            let _ = (cell.row(), cell.family(), cell.qualifier(), cell.value(), cell.tags());
        }
    }

    #[test]
    fn split_never_panics(cells in 0usize..20, counts in proptest::collection::vec(0u32..8, 0..8)) {
        let items: Vec<usize> = (0..cells).collect();
        let announced: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        match split_results(&items, &counts) {
            Ok(results) => {
                prop_assert_eq!(announced, cells as u64);
                let flat: Vec<usize> = results.concat();
                prop_assert_eq!(flat, items);
            }
            Err(_) => prop_assert_ne!(announced, cells as u64),
        }
    }
}
