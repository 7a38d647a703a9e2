//! `-o json` of the admin commands that print: one JSON document per command, on one
//! line, one shape per kind. Keys and names of bytes are `\xNN`-escaped text, as in
//! the text output; settings HBase did not report are `null`.
//!
//! | command | shape |
//! |---|---|
//! | `ns list` | `{"namespaces": [name]}` |
//! | `ns describe` | `{"name", "config": {k: v}, "tables": [name]}` |
//! | `table list` | `{"tables": [name]}` |
//! | `table describe` | `{"name", "enabled", "region_replication", "settings": {k: v}, "families": [family], "regions": [region]}` |
//! | `regions` | `{"table", "regions": [region]}` |
//! | `snapshot list` | `{"snapshots": [{"name", "table", "created_ms", "owner", "ttl_seconds"}]}` |
//! | `status` | `{"version", "cluster_id", "master", "backup_masters", "live_servers": [server], "dead_servers", "regions_in_transition", "balancer_on"}` |

use std::collections::BTreeMap;

use basalt::{ClusterStatus, ColumnFamily, RegionLoad, RegionLocation, SnapshotInfo, TableDescriptor};
use clap::ValueEnum;
use serde_json::{json, Value};

use crate::keyfmt::escape;

/// How an admin command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum AdminFormat {
    /// Lines for people.
    #[default]
    Text,
    /// One JSON document (see the shapes in `basalt COMMAND --help`).
    Json,
}

/// `ns list`.
pub fn namespaces(names: &[String]) -> Value {
    json!({ "namespaces": names })
}

/// `ns describe`.
pub fn namespace(name: &str, config: &BTreeMap<String, String>, tables: &[String]) -> Value {
    json!({ "name": name, "config": config, "tables": tables })
}

/// `table list`.
pub fn tables(names: &[String]) -> Value {
    json!({ "tables": names })
}

/// `table describe`.
pub fn table(desc: &TableDescriptor, enabled: bool, regions: &[RegionLocation]) -> Value {
    json!({
        "name": desc.name(),
        "enabled": enabled,
        "region_replication": desc.get_region_replication(),
        "settings": desc.settings(),
        "families": desc.families().iter().map(family).collect::<Vec<_>>(),
        "regions": regions.iter().map(region).collect::<Vec<_>>(),
    })
}

/// One column family of `table describe`.
fn family(f: &ColumnFamily) -> Value {
    json!({
        "name": escape(f.name()),
        "max_versions": f.get_max_versions(),
        "ttl_seconds": f.get_ttl_seconds(),
        "bloom_filter": f.get_bloom_filter().map(|v| format!("{v:?}")),
        "compression": f.get_compression().map(|v| format!("{v:?}")),
        "block_encoding": f.get_block_encoding().map(|v| format!("{v:?}")),
        "block_size": f.get_block_size(),
        "in_memory": f.get_in_memory(),
        "settings": f.settings(),
    })
}

/// One region: `start` and `end` are `""` for the table's first and last.
fn region(r: &RegionLocation) -> Value {
    json!({
        "start": escape(&r.start_key),
        "end": escape(&r.end_key),
        "server": format!("{}:{}", r.host, r.port.unwrap_or(0)),
        "region_id": r.region_id,
    })
}

fn region_with_load((r, load): &(RegionLocation, Option<RegionLoad>)) -> Value {
    let mut value = region(r);
    if let (Some(load), Some(object)) = (load, value.as_object_mut()) {
        object.insert(
            "load".to_owned(),
            json!({
                "store_files": load.store_files,
                "store_file_size_mb": load.store_file_size_mb,
                "memstore_size_mb": load.memstore_size_mb,
                "read_requests": load.read_requests,
                "write_requests": load.write_requests,
            }),
        );
    }
    value
}

/// `regions TABLE`: each region with its load when native RPC gave it.
pub fn regions(table: &str, regions: &[(RegionLocation, Option<RegionLoad>)]) -> Value {
    json!({ "table": table, "regions": regions.iter().map(region_with_load).collect::<Vec<_>>() })
}

/// `snapshot list`.
pub fn snapshots(list: &[SnapshotInfo]) -> Value {
    let items: Vec<Value> = list
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "table": s.table,
                "created_ms": s.creation_time,
                "owner": s.owner,
                "ttl_seconds": s.ttl_seconds,
            })
        })
        .collect();
    json!({ "snapshots": items })
}

/// `status`.
pub fn status(s: &ClusterStatus) -> Value {
    let live: Vec<Value> = s
        .live_servers
        .iter()
        .map(|server| {
            json!({
                "server": server.addr,
                "start_code": server.start_code,
                "regions": server.regions,
                "requests_per_second": server.requests_per_second,
                "total_requests": server.total_requests,
            })
        })
        .collect();
    let moving: Vec<Value> = s
        .regions_in_transition
        .iter()
        .map(|r| json!({ "table": r.table, "region": r.region, "state": r.state }))
        .collect();
    json!({
        "version": s.version,
        "cluster_id": s.cluster_id,
        "master": s.master,
        "backup_masters": s.backup_masters,
        "live_servers": live,
        "dead_servers": s.dead_servers,
        "regions_in_transition": moving,
        "balancer_on": s.balancer_on,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let names = vec!["default".to_owned(), "hbase".to_owned()];
        assert_eq!(namespaces(&names).to_string(), r#"{"namespaces":["default","hbase"]}"#);
        assert_eq!(tables(&[]).to_string(), r#"{"tables":[]}"#);
        let config = BTreeMap::from([("owner".to_owned(), "billing".to_owned())]);
        let ns = namespace("telecom", &config, &["telecom:calls".to_owned()]);
        assert_eq!(ns.to_string(), r#"{"config":{"owner":"billing"},"name":"telecom","tables":["telecom:calls"]}"#);
        let r = RegionLocation {
            start_key: basalt::Bytes::from_static(b"m\x00"),
            end_key: basalt::Bytes::new(),
            region_id: 7,
            host: "rs1".into(),
            port: Some(16020),
        };
        let load = RegionLoad {
            name: basalt::Bytes::from_static(b"t,m\x00,7.abc."),
            stores: 1,
            store_files: 2,
            store_file_size_mb: 3,
            memstore_size_mb: 0,
            read_requests: 4,
            write_requests: 5,
        };
        let value = regions("t", &[(r.clone(), Some(load)), (r, None)]);
        assert_eq!(value["regions"][0]["start"], "m\\x00");
        assert_eq!(value["regions"][0]["end"], "");
        assert_eq!(value["regions"][0]["server"], "rs1:16020");
        assert_eq!(value["regions"][0]["load"]["store_files"], 2);
        assert!(value["regions"][1]["load"].is_null());
        let desc = TableDescriptor::new("t").family(ColumnFamily::new("d").max_versions(3));
        let value = table(&desc, true, &[]);
        assert_eq!((value["name"].as_str(), value["enabled"].as_bool()), (Some("t"), Some(true)));
        assert_eq!(value["families"][0]["name"], "d");
        assert_eq!(value["families"][0]["max_versions"], 3);
        assert!(value["families"][0]["compression"].is_null());
    }
}
