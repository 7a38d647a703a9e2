use super::*;
use bytes::BytesMut;
use proptest::prelude::*;

fn region_info_bytes(start: &[u8], end: &[u8]) -> Vec<u8> {
    // RegionInfo written field by field (HBase.proto: region_id = 1, table_name = 2,
    // start_key = 3, end_key = 4, offline = 5, split = 6), then PBUF in front.
    let mut table = Vec::new();
    table.extend_from_slice(&[0x0a, 7]);
    table.extend_from_slice(b"default");
    table.extend_from_slice(&[0x12, 5]);
    table.extend_from_slice(b"users");
    let mut message = vec![0x08];
    prost::encoding::encode_varint(1_700_000_000_000, &mut message);
    message.push(0x12);
    message.push(table.len() as u8);
    message.extend_from_slice(&table);
    message.push(0x1a);
    message.push(start.len() as u8);
    message.extend_from_slice(start);
    message.push(0x22);
    message.push(end.len() as u8);
    message.extend_from_slice(end);
    let mut value = b"PBUF".to_vec();
    value.extend_from_slice(&message);
    value
}

const ROW: &[u8] = b"users,m,1700000000000.0123456789abcdef0123456789abcdef.";

fn columns(list: &[(&[u8], Vec<u8>)]) -> Result<MetaRow, MetaError> {
    let owned: Vec<(&[u8], &[u8], &[u8])> =
        list.iter().map(|(qualifier, value)| (CATALOG_FAMILY, *qualifier, &value[..])).collect();
    MetaRow::from_columns(Bytes::from_static(ROW), owned)
}

#[test]
fn reads_a_meta_row_with_a_replica() {
    let row = columns(&[
        (b"regioninfo", region_info_bytes(b"m", b"t")),
        (b"seqnumDuringOpen", 17i64.to_be_bytes().to_vec()),
        (b"server", b"rs1.example.com:16020".to_vec()),
        (b"server_0001", b"rs2.example.com:16020".to_vec()),
        (b"serverstartcode", 1_700_000_000_001i64.to_be_bytes().to_vec()),
        (b"serverstartcode_0001", 1_700_000_000_002i64.to_be_bytes().to_vec()),
        (b"sn", b"rs1.example.com,16020,1700000000001".to_vec()),
        (b"state", b"OPEN".to_vec()),
    ])
    .unwrap();
    assert_eq!(row.region_info.region_id, 1_700_000_000_000);
    assert_eq!(table_name_bytes(&row.region_info.table_name), b"users");
    assert_eq!(row.region_info.start_key.as_deref(), Some(&b"m"[..]));
    assert_eq!(row.region_info.end_key.as_deref(), Some(&b"t"[..]));
    assert_eq!(
        row.primary(),
        Some(&ServerName { host: "rs1.example.com".into(), port: 16020, start_code: Some(1_700_000_000_001) })
    );
    assert_eq!(row.locations.len(), 2);
    assert_eq!(row.locations[0].seq_num, Some(17));
    assert_eq!(row.locations[1].replica_id, 1);
    assert_eq!(row.locations[1].server.as_ref().unwrap().host, "rs2.example.com");
    assert_eq!(row.locations[1].server.as_ref().unwrap().start_code, Some(1_700_000_000_002));
    assert!(row.contains_row(b"m"));
    assert!(row.contains_row(b"s\xff"));
    assert!(!row.contains_row(b"t"));
    assert!(!row.contains_row(b"a"));
    assert!(!row.is_offline_or_split());
}

#[test]
fn unassigned_region_has_no_server() {
    let row = columns(&[(b"regioninfo", region_info_bytes(b"", b"")), (b"server", Vec::new())]).unwrap();
    assert_eq!(row.primary(), None);
    assert_eq!(row.locations.len(), 1);
    assert!(row.contains_row(b""));
    assert!(row.contains_row(b"\xff\xff"));
}

#[test]
fn first_version_of_a_column_wins() {
    let row = columns(&[
        (b"regioninfo", region_info_bytes(b"", b"")),
        (b"server", b"new:1".to_vec()),
        (b"server", b"old:2".to_vec()),
    ])
    .unwrap();
    assert_eq!(row.primary().unwrap().host, "new");
}

#[test]
fn bad_meta_values_are_typed_errors() {
    assert_eq!(columns(&[]), Err(MetaError::MissingRegionInfo));
    assert_eq!(columns(&[(b"regioninfo", b"XXXX".to_vec())]), Err(MetaError::NoPbufMagic));
    assert!(matches!(columns(&[(b"regioninfo", b"PBUF\xff\xff".to_vec())]), Err(MetaError::BadRegionInfo { .. })));
    assert!(matches!(
        columns(&[(b"regioninfo", region_info_bytes(b"", b"")), (b"server", b"no-port".to_vec())]),
        Err(MetaError::BadServer { .. })
    ));
    assert_eq!(
        columns(&[(b"regioninfo", region_info_bytes(b"", b"")), (b"serverstartcode", vec![1, 2, 3])]),
        Err(MetaError::BadLong { qualifier: "serverstartcode".into(), length: 3 })
    );
}

#[test]
fn reads_a_meta_row_from_cells() {
    use crate::cellblock::{decode_cell_block, encode_cell, CellCodec, CellParts, CellType};
    let mut block = BytesMut::new();
    let region_info = region_info_bytes(b"m", b"t");
    for (qualifier, value) in [(&b"regioninfo"[..], &region_info[..]), (b"server", b"rs1:16020")] {
        let parts = CellParts {
            row: ROW,
            family: CATALOG_FAMILY,
            qualifier,
            timestamp: 1,
            cell_type: CellType::Put,
            value,
            tags: b"",
        };
        encode_cell(CellCodec::KeyValue, &parts, &mut block).unwrap();
    }
    let cells = decode_cell_block(block.freeze(), CellCodec::KeyValue).unwrap();
    let row = MetaRow::from_cells(&cells).unwrap();
    assert_eq!(&row.row[..], ROW);
    assert_eq!(row.primary().unwrap().port, 16020);
}

#[test]
fn meta_scan_keys_are_hbase_region_names() {
    assert_eq!(meta_key_for_row(b"users", b"row1"), b"users,row1,99999999999999");
    assert_eq!(meta_key_for_row(b"ns:t", b""), b"ns:t,,99999999999999");
    assert_eq!(meta_key_before_row(b"users", b"row1"), b"users,row1,00000000000000");
    assert_eq!(meta_key_before_row(b"users", b""), b"users\x00");
    assert_eq!(meta_stop_key(b"users"), b"users,,");
    let in_ns = pb::TableName { namespace: Bytes::from_static(b"ns"), qualifier: Bytes::from_static(b"t") };
    assert_eq!(table_name_bytes(&in_ns), b"ns:t");
}

#[test]
fn region_names_parse() {
    let name = RegionName::parse(&Bytes::from_static(ROW)).unwrap();
    assert_eq!(&name.table[..], b"users");
    assert_eq!(&name.start_key[..], b"m");
    assert_eq!(&name.region_id[..], b"1700000000000");
    assert_eq!(name.replica_id, 0);
    assert_eq!(name.encoded.as_deref(), Some(&b"0123456789abcdef0123456789abcdef"[..]));
    // Commas in the start key, a replica id, the old format without an encoded name.
    let name = RegionName::parse(&Bytes::from_static(b"ns:t,a,b,c,1700000000000_0002")).unwrap();
    assert_eq!(&name.table[..], b"ns:t");
    assert_eq!(&name.start_key[..], b"a,b,c");
    assert_eq!(name.replica_id, 2);
    assert_eq!(name.encoded, None);
    for bad in [&b"nocomma"[..], b"t,only", b"t,k,notanumber", b"t,k,12_zz"] {
        assert!(RegionName::parse(&Bytes::copy_from_slice(bad)).is_err(), "{}", String::from_utf8_lossy(bad));
    }
}

proptest! {
    #[test]
    fn region_names_round_trip(
        table in "[a-z]{1,8}(:[a-z]{1,8})?",
        start in proptest::collection::vec(any::<u8>(), 0..20),
        id in 0u64..u64::MAX / 2,
        replica in 0u16..16,
        encoded in "[0-9a-f]{32}",
    ) {
        let mut name = region_name(table.as_bytes(), &start, id.to_string().as_bytes());
        if replica > 0 {
            name.extend_from_slice(format!("_{replica:04X}").as_bytes());
        }
        name.push(b'.');
        name.extend_from_slice(encoded.as_bytes());
        name.push(b'.');
        let parsed = RegionName::parse(&Bytes::from(name)).unwrap();
        prop_assert_eq!(&parsed.table[..], table.as_bytes());
        prop_assert_eq!(&parsed.start_key[..], &start[..]);
        let id_text = id.to_string();
        prop_assert_eq!(&parsed.region_id[..], id_text.as_bytes());
        prop_assert_eq!(parsed.replica_id, replica);
        prop_assert_eq!(parsed.encoded.as_deref(), Some(encoded.as_bytes()));
    }

    #[test]
    fn hostile_region_names_never_panic(name in proptest::collection::vec(any::<u8>(), 0..60)) {
        let _ = RegionName::parse(&Bytes::from(name));
    }

    #[test]
    fn hostile_meta_columns_never_panic(
        list in proptest::collection::vec((
            prop_oneof![Just(b"regioninfo".to_vec()), Just(b"server".to_vec()), Just(b"server_0001".to_vec()),
                        Just(b"serverstartcode".to_vec()), Just(b"seqnumDuringOpen_00zz".to_vec())],
            proptest::collection::vec(any::<u8>(), 0..40)), 0..6),
    ) {
        let refs: Vec<(&[u8], Vec<u8>)> = list.iter().map(|(q, v)| (&q[..], v.clone())).collect();
        let _ = columns(&refs);
    }
}
