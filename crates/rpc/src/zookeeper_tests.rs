//! Unit tests of the znode readers: the layouts HBase writes, and hostile data.

use std::time::{Duration, Instant};

use prost::Message;

use super::*;

/// HBase's metadata prefix (0xFF, the id's length, the id) before `body`.
fn with_metadata(id: &[u8], body: &[u8]) -> Vec<u8> {
    let mut data = vec![METADATA_MAGIC];
    data.extend_from_slice(&i32::try_from(id.len()).unwrap().to_be_bytes());
    data.extend_from_slice(id);
    data.extend_from_slice(body);
    data
}

fn pb_magic(message: &impl Message) -> Vec<u8> {
    let mut data = PB_MAGIC.to_vec();
    data.extend_from_slice(&message.encode_to_vec());
    data
}

fn server(host: &str, port: Option<u32>) -> pb::ServerName {
    pb::ServerName { host_name: host.into(), port, start_code: Some(1_700_000_000_000) }
}

fn meta_znode(host: &str, port: Option<u32>) -> Vec<u8> {
    let message = MetaRegionServerProto { server: Some(server(host, port)), rpc_version: Some(0), state: Some(3) };
    // The writer's id as RecoverableZooKeeper makes it: "pid@host" and 8 random bytes.
    with_metadata(b"4242@rs1.example\x01\x02\x03\x04\x05\x06\x07\x08", &pb_magic(&message))
}

const UUID: &str = "5d2f3a4c-7b1e-4d9a-9c3f-0e8b6a1d2c4e";

#[test]
fn reads_the_cluster_id_as_hbase_writes_it() {
    let body = pb_magic(&ClusterIdProto { cluster_id: Some(UUID.into()) });
    assert_eq!(parse_cluster_id(&with_metadata(b"77@master", &body)).unwrap(), UUID);
    // Without the metadata prefix, and in the bare form of very old clusters.
    assert_eq!(parse_cluster_id(&body).unwrap(), UUID);
    assert_eq!(parse_cluster_id(UUID.as_bytes()).unwrap(), UUID);
    // An empty writer id is a valid prefix.
    assert_eq!(parse_cluster_id(&with_metadata(b"", &body)).unwrap(), UUID);
}

#[test]
fn reads_the_meta_server_and_the_master() {
    assert_eq!(parse_meta_server(&meta_znode("rs1.example", Some(16020))).unwrap(), "rs1.example:16020");
    let master =
        MasterProto { master: Some(server("m.example", Some(16000))), rpc_version: None, info_port: Some(16010) };
    assert_eq!(parse_master(&with_metadata(b"1@m", &pb_magic(&master))).unwrap(), "m.example:16000");
    assert_eq!(parse_master(&pb_magic(&master)).unwrap(), "m.example:16000");
}

#[test]
fn a_bad_metadata_prefix_is_a_typed_error() {
    assert_eq!(parse_cluster_id(&[]), Err(ZnodeError::Empty));
    assert_eq!(parse_meta_server(&[]), Err(ZnodeError::Empty));
    for cut in 1..5 {
        let data = [METADATA_MAGIC, 0, 0, 0, 9];
        assert_eq!(strip_metadata(&data[..cut]), Err(ZnodeError::TruncatedMetadata(cut)));
    }
    let negative = [METADATA_MAGIC, 0xFF, 0xFF, 0xFF, 0xFE, b'P'];
    assert_eq!(strip_metadata(&negative), Err(ZnodeError::BadMetadataLength { declared: -2, remaining: 1 }));
    let huge = [METADATA_MAGIC, 0x7F, 0xFF, 0xFF, 0xFF, 1, 2, 3];
    assert_eq!(strip_metadata(&huge), Err(ZnodeError::BadMetadataLength { declared: i32::MAX, remaining: 3 }));
    let one_over = with_metadata(b"abcd", b"")[..8].to_vec();
    assert_eq!(strip_metadata(&one_over), Err(ZnodeError::BadMetadataLength { declared: 4, remaining: 3 }));
    // An id that takes every byte leaves nothing: no magic, and no cluster id.
    assert_eq!(parse_meta_server(&with_metadata(b"abcd", b"")), Err(ZnodeError::NoProtobufMagic));
    assert_eq!(parse_cluster_id(&with_metadata(b"abcd", b"")), Err(ZnodeError::Missing("cluster_id")));
    assert_eq!(strip_metadata(&vec![0; MAX_ZNODE_BYTES + 1]), Err(ZnodeError::TooLarge(MAX_ZNODE_BYTES + 1)));
}

#[test]
fn a_bad_message_is_a_typed_error() {
    assert_eq!(parse_meta_server(&with_metadata(b"x", b"PBU")), Err(ZnodeError::NoProtobufMagic));
    assert_eq!(parse_meta_server(&with_metadata(b"x", b"JSON{}")), Err(ZnodeError::NoProtobufMagic));
    // A field whose declared length runs past the end.
    assert!(matches!(parse_meta_server(b"PBUF\x0a\x7f\x0a"), Err(ZnodeError::Decode(_))));
    assert!(matches!(parse_cluster_id(b"PBUF\x0a\xff\xff\xff\xff\x0f"), Err(ZnodeError::Decode(_))));
    // A wire type that does not exist.
    assert!(matches!(parse_master(b"PBUF\x0f"), Err(ZnodeError::Decode(_))));
    // An empty message: no server, no cluster id.
    assert_eq!(parse_meta_server(b"PBUF"), Err(ZnodeError::Missing("server")));
    assert_eq!(parse_master(b"PBUF"), Err(ZnodeError::Missing("server")));
    assert_eq!(parse_cluster_id(b"PBUF"), Err(ZnodeError::Missing("cluster_id")));
    let empty_id = pb_magic(&ClusterIdProto { cluster_id: Some(String::new()) });
    assert_eq!(parse_cluster_id(&empty_id), Err(ZnodeError::Missing("cluster_id")));
}

#[test]
fn a_bad_cluster_id_is_refused() {
    assert_eq!(parse_cluster_id(b"\xC3\x28not utf-8"), Err(ZnodeError::BadClusterId));
    let long = "x".repeat(MAX_CLUSTER_ID_BYTES + 1);
    assert_eq!(parse_cluster_id(long.as_bytes()), Err(ZnodeError::BadClusterId));
    let long = pb_magic(&ClusterIdProto { cluster_id: Some(long) });
    assert_eq!(parse_cluster_id(&long), Err(ZnodeError::BadClusterId));
    // Invalid UTF-8 inside the message.
    assert!(matches!(parse_cluster_id(b"PBUF\x0a\x02\xC3\x28"), Err(ZnodeError::Decode(_))));
}

#[test]
fn a_bad_server_name_is_refused() {
    assert_eq!(parse_meta_server(&meta_znode("rs1", None)), Err(ZnodeError::Missing("port")));
    for port in [0, 65_536, u32::MAX] {
        assert_eq!(
            parse_meta_server(&meta_znode("rs1", Some(port))),
            Err(ZnodeError::BadServer(format!("port {port}")))
        );
    }
    assert!(matches!(parse_meta_server(&meta_znode("", Some(16020))), Err(ZnodeError::BadServer(_))));
    assert!(matches!(parse_meta_server(&meta_znode(&"h".repeat(256), Some(16020))), Err(ZnodeError::BadServer(_))));
    for host in ["rs 1", "rs1,rs2", "rs1/x", "rs1\n", "rs\u{0}1"] {
        assert!(matches!(parse_meta_server(&meta_znode(host, Some(16020))), Err(ZnodeError::BadServer(_))), "{host:?}");
    }
    assert_eq!(parse_meta_server(&meta_znode(&"h".repeat(255), Some(1))).unwrap(), format!("{}:1", "h".repeat(255)));
}

#[test]
fn every_cut_and_every_flipped_byte_of_a_znode_is_read_without_panicking() {
    let good = meta_znode("rs1.example", Some(16020));
    let id = with_metadata(b"1@m", &pb_magic(&ClusterIdProto { cluster_id: Some(UUID.into()) }));
    for data in [&good, &id] {
        for cut in 0..data.len() {
            let _ = parse_meta_server(&data[..cut]);
            let _ = parse_master(&data[..cut]);
            let _ = parse_cluster_id(&data[..cut]);
        }
        for at in 0..data.len() {
            for value in [0x00, 0x7F, 0x80, 0xFF, data[at] ^ 0x01] {
                let mut bad = data.clone();
                bad[at] = value;
                let _ = parse_meta_server(&bad);
                let _ = parse_master(&bad);
                let _ = parse_cluster_id(&bad);
            }
        }
    }
    // A cut never reads as another server: it fails, or (cut after the server name,
    // in the optional fields) reads the same server.
    let mut failed = 0;
    for cut in 0..good.len() {
        match parse_meta_server(&good[..cut]) {
            Ok(server) => assert_eq!(server, "rs1.example:16020", "cut at {cut}"),
            Err(_) => failed += 1,
        }
    }
    assert!(failed >= good.len() - 4, "{failed} of {} cuts failed", good.len());
}

#[test]
fn meta_replica_znodes_are_told_from_other_children() {
    assert_eq!(meta_replica_of("meta-region-server"), Some(0));
    assert_eq!(meta_replica_of("meta-region-server-1"), Some(1));
    assert_eq!(meta_replica_of("meta-region-server-12"), Some(12));
    for other in [
        "meta-region-server-",
        "meta-region-server-0",
        "meta-region-server-x",
        "meta-region-server-+1",
        "meta-region-server-99999",
        "meta-region-serverx",
        "hbaseid",
        "master",
        "",
    ] {
        assert_eq!(meta_replica_of(other), None, "{other:?}");
    }
    assert_eq!(meta_location(0, "rs:1".into()).region_name, Bytes::from_static(b"hbase:meta,,1"));
    let replica = meta_location(2, "rs:2".into());
    assert_eq!(replica.region_name, Bytes::from_static(b"hbase:meta,,1_0002"));
    assert_eq!((replica.replica_id, replica.table.as_str(), replica.server.as_str()), (2, "hbase:meta", "rs:2"));
    assert!(replica.start_key.is_empty() && replica.end_key.is_empty());
}

#[test]
fn the_znode_parent_must_be_an_absolute_path() {
    assert_eq!(parent_path("/hbase").unwrap(), "/hbase");
    assert_eq!(parent_path("/hbase/").unwrap(), "/hbase");
    assert_eq!(parent_path("/a/b").unwrap(), "/a/b");
    for bad in ["hbase", "", "/", "//hbase", "/a//b"] {
        assert!(matches!(parent_path(bad), Err(RpcError::InvalidArgument(_))), "{bad:?}");
    }
}

#[tokio::test]
async fn a_quorum_nobody_listens_on_is_a_bootstrap_error_at_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let started = Instant::now();
    let error = bootstrap(&addr.to_string(), "/hbase", Duration::from_secs(20)).await.unwrap_err();
    assert!(matches!(&error, RpcError::Bootstrap(why) if why.contains(&addr.to_string())), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert!(matches!(bootstrap(" ", "/hbase", Duration::from_secs(1)).await, Err(RpcError::InvalidArgument(_))));
}

#[tokio::test]
async fn a_quorum_that_never_answers_fails_within_the_timeout() {
    // Accepts connections and never says a word.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let started = Instant::now();
    let error = bootstrap(&addr.to_string(), "/hbase", Duration::from_millis(800)).await.unwrap_err();
    let took = started.elapsed();
    silent.abort();
    assert!(matches!(&error, RpcError::Bootstrap(why) if why.contains("did not answer")), "{error}");
    assert!(took < Duration::from_secs(3), "took {took:?}");
}
