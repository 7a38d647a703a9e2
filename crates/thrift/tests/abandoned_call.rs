//! A call whose future is dropped before its reply arrives leaves the connection
//! unusable (the reply would be read by the next call), for every kind of call.

use std::time::Duration;

use basalt_thrift::{CallError, Connection, ConnectionOptions};

#[tokio::test]
async fn a_call_dropped_half_way_poisons_the_connection() {
    for kind in 0..3 {
        // The server end stays open and never answers.
        let (client, _server) = tokio::io::duplex(1 << 16);
        let mut conn = Connection::from_stream(client, "pipe", ConnectionOptions::default());
        match kind {
            0 => drop(tokio::time::timeout(Duration::from_nanos(1), conn.list_namespaces()).await),
            1 => drop(tokio::time::timeout(Duration::from_nanos(1), conn.get_scanner_rows(1, 10)).await),
            _ => drop(tokio::time::timeout(Duration::from_nanos(1), conn.delete_rows(b"t", &[])).await),
        }
        assert!(!conn.is_reusable(), "call kind {kind}: an abandoned call must poison the connection");
        assert!(matches!(conn.list_namespaces().await, Err(CallError::ConnectionUnusable)), "call kind {kind}");
    }
}
