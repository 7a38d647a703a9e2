//! Replays the fuzz target's seeds (`fuzz/seeds/`) and anything it found
//! (`fuzz/regressions/`, when present) through the fuzz harness itself, and checks
//! that the checked-in seeds are what `seeds()` below builds (write them again with
//! `BASALT_WRITE_FUZZ_SEEDS=1 cargo test -p basalt-rpc-protocol --test fuzz_inputs`).

use std::path::{Path, PathBuf};

use basalt_rpc_protocol::cellblock::{encode_cell, CellParts, CellType};
use basalt_rpc_protocol::reply::encode_reply;
use prost::Message;

include!("../fuzz/harness.rs");

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn header(call_id: u32, cell_block_len: usize) -> pb::ResponseHeader {
    pb::ResponseHeader {
        call_id: Some(call_id),
        exception: None,
        cell_block_meta: (cell_block_len > 0).then_some(pb::CellBlockMeta { length: Some(cell_block_len as u32) }),
    }
}

fn cell(out: &mut BytesMut, codec: CellCodec, row: &[u8], qualifier: &[u8], value: &[u8], tags: &[u8]) {
    let parts = CellParts {
        row,
        family: b"info",
        qualifier,
        timestamp: 1_700_000_000_000,
        cell_type: CellType::Put,
        value,
        tags,
    };
    encode_cell(codec, &parts, out).unwrap();
}

fn region_info_value() -> Vec<u8> {
    let info = pb::RegionInfo {
        region_id: 1_700_000_000_000,
        table_name: pb::TableName { namespace: "default".into(), qualifier: "users".into() },
        start_key: Some("m".into()),
        end_key: Some("t".into()),
        offline: None,
        split: None,
        replica_id: None,
    };
    let mut value = b"PBUF".to_vec();
    value.extend_from_slice(&info.encode_to_vec());
    value
}

/// A scan reply whose cells are one meta row, in `codec`.
fn meta_scan_reply(call_id: u32, codec: CellCodec, out: &mut BytesMut) {
    let row = b"users,m,1700000000000.0123456789abcdef0123456789abcdef.";
    let tags: &[u8] = if codec == CellCodec::KeyValueWithTags { b"\x01\x00\x01x" } else { b"" };
    let mut block = BytesMut::new();
    cell(&mut block, codec, row, b"regioninfo", &region_info_value(), tags);
    cell(&mut block, codec, row, b"server", b"rs1.example.com:16020", b"");
    cell(&mut block, codec, row, b"serverstartcode", &1_700_000_000_001i64.to_be_bytes(), b"");
    cell(&mut block, codec, row, b"server_0001", b"rs2.example.com:16020", b"");
    let scan = pb::ScanResponse {
        cells_per_result: vec![4],
        scanner_id: Some(42),
        more_results: Some(true),
        ttl: Some(60_000),
        more_results_in_region: Some(false),
        ..Default::default()
    };
    encode_reply(&header(call_id, block.len()), Some(&scan), &block, out).unwrap();
}

fn exception_reply(call_id: u32, class: &str, message: &str, out: &mut BytesMut) {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: Some(pb::ExceptionResponse {
            exception_class_name: Some(class.into()),
            stack_trace: Some(format!("{class}: {message}\n\tat X.y(X.java:1)")),
            hostname: Some("rs2.example.com".into()),
            port: Some(16020),
            do_not_retry: Some(false),
            server_overloaded: None,
        }),
        cell_block_meta: None,
    };
    encode_reply::<pb::ScanResponse>(&header, None, b"", out).unwrap();
}

fn input(flags: u8, chunk: u8, stream: &[u8]) -> Vec<u8> {
    let mut input = vec![flags, chunk];
    input.extend_from_slice(stream);
    input
}

/// The seeds: valid streams that start the fuzzer deep inside the grammar.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut plain = BytesMut::new();
    meta_scan_reply(1, CellCodec::KeyValue, &mut plain);
    let mut tagged = BytesMut::new();
    meta_scan_reply(2, CellCodec::KeyValueWithTags, &mut tagged);
    let mut moved = BytesMut::new();
    exception_reply(
        3,
        "org.apache.hadoop.hbase.exceptions.RegionMovedException",
        "Region moved to: hostname=rs2.example.com port=16020 startCode=1700000000001. As of locationSeqNum=9.",
        &mut moved,
    );
    let mut mixed = BytesMut::new();
    meta_scan_reply(4, CellCodec::KeyValue, &mut mixed);
    exception_reply(5, "org.apache.hadoop.hbase.UnknownScannerException", "Unknown scanner '42'.", &mut mixed);
    let get = pb::GetResponse { result: Some(pb::Result { associated_cell_count: Some(0), ..Default::default() }) };
    encode_reply(&header(6, 0), Some(&get), b"", &mut mixed).unwrap();
    vec![
        ("meta-scan-keyvalue", input(0, 255, &plain)),
        ("meta-scan-with-tags", input(1, 255, &tagged)),
        ("region-moved", input(0, 255, &moved)),
        ("mixed-chunked", input(0, 7, &mixed)),
    ]
}

#[test]
fn seeds_are_current() {
    let dir = fuzz_dir().join("seeds");
    let write = std::env::var_os("BASALT_WRITE_FUZZ_SEEDS").is_some();
    for (name, bytes) in seeds() {
        let path = dir.join(name);
        if write {
            std::fs::write(&path, &bytes).unwrap();
        }
        let on_disk = std::fs::read(&path).unwrap_or_else(|error| {
            panic!("{}: {error}; write the seeds with BASALT_WRITE_FUZZ_SEEDS=1", path.display())
        });
        assert_eq!(on_disk, bytes, "{} is stale; write the seeds with BASALT_WRITE_FUZZ_SEEDS=1", path.display());
    }
}

#[test]
fn seeds_decode_every_reply() {
    let expected = [("meta-scan-keyvalue", 1), ("meta-scan-with-tags", 1), ("region-moved", 1), ("mixed-chunked", 3)];
    let seeds = seeds();
    for (name, replies) in expected {
        let (_, bytes) = seeds.iter().find(|(seed, _)| *seed == name).unwrap();
        assert_eq!(run_input(bytes), replies, "{name}");
    }
}

#[test]
fn fuzz_findings_and_seeds_replay() {
    let mut files = Vec::new();
    for dir in ["regressions", "seeds"] {
        let Ok(entries) = std::fs::read_dir(fuzz_dir().join(dir)) else {
            continue;
        };
        for entry in entries {
            files.push(entry.unwrap().path());
        }
    }
    files.sort();
    assert!(files.len() >= seeds().len(), "fuzz/seeds is missing inputs: {files:?}");
    for file in files {
        let input = std::fs::read(&file).unwrap();
        run_input(&input);
    }
}
