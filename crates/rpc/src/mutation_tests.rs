//! Unit tests of `mutation.rs`.

use super::*;
use basalt_rpc_protocol::cellblock::decode_cell_block;

/// Encodes `write` as a batch does; the action and the cells, read back with the
/// KeyValue decoder.
fn encode(write: &Mutation, nonce: Option<u64>) -> (pb::Action, Vec<basalt_rpc_protocol::cellblock::Cell>) {
    let mut block = BytesMut::from(&b"before"[..]);
    let mut request = MultiWriter::new();
    request.region(&Bytes::from_static(b"region"));
    write_action(write, 3, nonce, &mut request, &mut block).unwrap();
    let cells = decode_cell_block(block.freeze().slice(6..), CellCodec::KeyValue).unwrap();
    (decoded(request).remove(0), cells)
}

/// The actions of the request's only region.
fn decoded(request: MultiWriter) -> Vec<pb::Action> {
    use prost::Message;
    let mut multi = pb::MultiRequest::decode(request.finish(None).0).unwrap();
    multi.region_action.pop().map(|region| region.action).unwrap_or_default()
}

#[test]
fn puts_go_as_cells_with_a_data_free_mutation() {
    let put = Mutation::put("row").at(5).column("f", "a", "1").column_at("g", "b", "22", 6).column("f", "", "");
    let (action, cells) = encode(&put, Some(9));
    let proto = action.mutation.unwrap();
    assert_eq!(action.index, Some(3));
    assert_eq!(proto.row.as_deref(), Some(&b"row"[..]));
    assert_eq!(proto.associated_cell_count, Some(3));
    assert!(proto.column_value.is_empty(), "no data in the message");
    assert_eq!((proto.timestamp, proto.nonce), (Some(5), None), "puts carry no nonce");
    let seen: Vec<_> =
        cells.iter().map(|c| (c.row(), c.family(), c.qualifier(), c.value(), c.timestamp(), c.cell_type())).collect();
    assert_eq!(
        seen,
        vec![
            (&b"row"[..], &b"f"[..], &b"a"[..], &b"1"[..], 5, CellType::Put),
            (&b"row"[..], &b"g"[..], &b"b"[..], &b"22"[..], 6, CellType::Put),
            (&b"row"[..], &b"f"[..], &b""[..], &b""[..], 5, CellType::Put),
        ]
    );
    // Without a timestamp, the server's clock (LATEST_TIMESTAMP).
    let (_, cells) = encode(&Mutation::put("r").column("f", "q", "v"), None);
    assert_eq!(cells[0].timestamp(), i64::MAX);
}

#[test]
fn deletes_go_as_markers_and_a_whole_row_delete_as_none() {
    let delete = Mutation::delete("r")
        .column("f", "all", "ignored")
        .column_at("f", "until", "", 7)
        .delete_latest_version("f", "newest")
        .delete_version("f", "one", 8)
        .family("g")
        .family_at("h", 9)
        .family_version("i", 10);
    let (action, cells) = encode(&delete, Some(1));
    assert_eq!(action.mutation.as_ref().unwrap().associated_cell_count, Some(7));
    assert_eq!(action.mutation.unwrap().nonce, None);
    let seen: Vec<_> = cells.iter().map(|c| (c.family(), c.qualifier(), c.timestamp(), c.cell_type())).collect();
    let latest = i64::MAX;
    assert_eq!(
        seen,
        vec![
            (&b"f"[..], &b"all"[..], latest, CellType::DeleteColumn),
            (&b"f"[..], &b"until"[..], 7, CellType::DeleteColumn),
            (&b"f"[..], &b"newest"[..], latest, CellType::Delete),
            (&b"f"[..], &b"one"[..], 8, CellType::Delete),
            (&b"g"[..], &b""[..], latest, CellType::DeleteFamily),
            (&b"h"[..], &b""[..], 9, CellType::DeleteFamily),
            (&b"i"[..], &b""[..], 10, CellType::DeleteFamilyVersion),
        ]
    );
    assert!(cells.iter().all(|c| c.value().is_empty()));
    let (action, cells) = encode(&Mutation::delete("r").at(4), None);
    let proto = action.mutation.unwrap();
    assert!(cells.is_empty());
    assert_eq!((proto.associated_cell_count, proto.timestamp), (None, Some(4)));
}

#[test]
fn increments_and_appends_carry_their_nonce() {
    let (action, cells) = encode(&Mutation::increment("r").add("f", "n", -2), Some(77));
    let proto = action.mutation.unwrap();
    assert_eq!((proto.nonce, proto.mutate_type), (Some(77), Some(MutationType::Increment as i32)));
    assert_eq!(cells[0].value(), &(-2i64).to_be_bytes()[..]);
    let (action, _) = encode(&Mutation::append("r").column("f", "q", "x"), Some(78));
    assert_eq!(action.mutation.unwrap().nonce, Some(78));
    let (a, b) = (next_nonce(), next_nonce());
    assert!(a != b && a != 0 && b != 0);
}

#[test]
fn what_hbase_would_refuse_is_refused_and_leaves_the_block_as_it_was() {
    let refused = |write: Mutation| {
        let mut block = BytesMut::from(&b"kept"[..]);
        let mut request = MultiWriter::new();
        request.region(&Bytes::from_static(b"region"));
        let error = write_action(&write, 0, None, &mut request, &mut block).unwrap_err();
        assert_eq!(&block[..], b"kept", "{error}");
        assert!(decoded(request).is_empty(), "no action for a refused write");
        assert!(matches!(error, RpcError::InvalidArgument(_)), "{error:?}");
    };
    // A family over 127 bytes, after a good cell (which is taken back).
    refused(Mutation::put("r").column("f", "q", "v").column(vec![b'f'; 128], "q", "v"));
    refused(Mutation::put(vec![b'r'; 32_768]).column("f", "q", "v"));
    refused(Mutation::put("r").column("", "q", "v"));
    refused(Mutation::put("r").at(u64::MAX).column("f", "q", "v"));
    refused(Mutation::put("r").column_at("f", "q", "v", 1 << 63));
    refused(Mutation::delete("r").delete_version("f", "q", u64::MAX));
    // A marker in a put, a value in a delete.
    let mut block = BytesMut::new();
    let mut put = CellWriter::new(&mut block, b"r", WriteKind::Put, None).unwrap();
    assert!(put.delete_family(b"f", None).is_err());
    let mut delete = CellWriter::new(&mut block, b"r", WriteKind::Delete, None).unwrap();
    assert!(delete.put(b"f", b"q", b"v", None).is_err());
    assert_eq!(delete.count(), 0);
    assert!(block.is_empty());
}

#[test]
fn a_cell_block_of_many_writes_reads_back_in_order() {
    let mut block = BytesMut::new();
    let writes: Vec<Mutation> = (0..50u32)
        .map(|i| Mutation::put(format!("row{i:03}")).column("f", format!("q{i}"), vec![i as u8; i as usize]))
        .collect();
    let mut request = MultiWriter::new();
    request.region(&Bytes::from_static(b"region"));
    for (i, write) in writes.iter().enumerate() {
        write_action(write, i as u32, None, &mut request, &mut block).unwrap();
    }
    let actions = decoded(request);
    assert_eq!(actions.len(), writes.len());
    let counts: i32 = actions.iter().map(|a| a.mutation.as_ref().unwrap().associated_cell_count.unwrap()).sum();
    let hint: usize = writes.iter().map(WriteCells::cells_len_hint).sum();
    assert_eq!(hint, block.len(), "the hint is the exact size");
    let cells = decode_cell_block(block.freeze(), CellCodec::KeyValue).unwrap();
    assert_eq!(cells.len() as i32, counts);
    for (i, cell) in cells.iter().enumerate() {
        assert_eq!(cell.row(), format!("row{i:03}").as_bytes());
        assert_eq!(cell.value(), &vec![i as u8; i][..]);
    }
}

#[test]
fn columns_group_by_family() {
    let proto = Mutation::put("r").column("f", "a", "1").column("g", "b", "2").column("f", "c", "3").to_proto(Some(9));
    assert_eq!(proto.nonce, None, "puts carry no nonce");
    assert_eq!(proto.column_value.len(), 2);
    assert_eq!(proto.column_value[0].qualifier_value.len(), 2);
    assert_eq!(proto.mutate_type, Some(MutationType::Put as i32));
    let increment = Mutation::increment("r").add("f", "n", -2).to_proto(Some(9));
    assert_eq!(increment.nonce, Some(9));
    assert_eq!(increment.column_value[0].qualifier_value[0].value.as_deref(), Some(&(-2i64).to_be_bytes()[..]));
    let delete = Mutation::delete("r").family("f").to_proto(None);
    assert_eq!(delete.column_value[0].qualifier_value[0].delete_type, Some(DeleteType::DeleteFamily as i32));
    assert!(!Mutation::append("r").is_idempotent());
    // A delete of a column's newest version deletes one more each time it runs.
    assert!(!Mutation::delete("r").column("f", "a", "").delete_latest_version("f", "q").is_idempotent());
    assert!(Mutation::delete("r").delete_version("f", "q", 7).family("g").is_idempotent());
    assert!(!WriteCells::is_idempotent(&Mutation::delete("r").delete_latest_version("f", "q")));
    // A put on the server's clock writes one more version each time it runs.
    assert!(!WriteCells::is_idempotent(&Mutation::put("r").column("f", "q", "v")));
    assert!(!Mutation::put("r").column_at("f", "a", "1", 3).column("f", "q", "v").is_idempotent());
    assert!(!Mutation::put("r").column_at("f", "q", "v", i64::MAX as u64).is_idempotent());
    assert!(!Mutation::put("r").at(i64::MAX as u64).column("f", "q", "v").is_idempotent());
    assert!(Mutation::put("r").column_at("f", "q", "v", 3).is_idempotent());
    assert!(Mutation::put("r").at(5).column("f", "q", "v").column_at("f", "a", "1", 3).is_idempotent());
    // Unless the caller accepts a second version.
    assert!(Mutation::put("r").column("f", "q", "v").resend_unstamped(true).is_idempotent());
    assert!(!Mutation::delete("r").delete_latest_version("f", "q").resend_unstamped(true).is_idempotent());
    let versions = Mutation::delete("r").delete_version("f", "q", 7).family_at("g", 8).to_proto(None);
    let first = &versions.column_value[0].qualifier_value[0];
    assert_eq!((first.delete_type, first.timestamp), (Some(DeleteType::DeleteOneVersion as i32), Some(7)));
    let second = &versions.column_value[1].qualifier_value[0];
    assert_eq!((second.delete_type, second.timestamp), (Some(DeleteType::DeleteFamily as i32), Some(8)));
    let put = Mutation::put("r").at(5).column_at("f", "q", "v", 6).to_proto(None);
    assert_eq!((put.timestamp, put.column_value[0].qualifier_value[0].timestamp), (Some(5), Some(6)));
}
