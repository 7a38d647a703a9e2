//! `hbase:meta`: region names, the rows that say where each region is, and the keys of
//! the reversed meta scan that finds the region holding a row.
//!
//! A meta row's key is the region's name, `table,startkey,regionid.encoded.` (the table
//! as `namespace:qualifier`, or just the qualifier in the `default` namespace). Its
//! `info` family holds `regioninfo` (`PBUF` then a `RegionInfo` message), `server`
//! (`host:port`), `serverstartcode` (an 8-byte long) and `seqnumDuringOpen`; a region
//! with read replicas has the same columns for each replica with a `_XXXX` suffix (the
//! replica id in 4 hex digits), such as `server_0001`.

use std::collections::BTreeMap;

use bytes::Bytes;
use prost::Message;

use crate::cellblock::Cell;
use crate::error::MetaError;
use crate::pb;

/// The name of the meta table.
pub const META_TABLE_NAME: &[u8] = b"hbase:meta";
/// The family of meta's location columns.
pub const CATALOG_FAMILY: &[u8] = b"info";
/// The prefix of every protobuf value HBase stores in meta.
pub const PB_MAGIC: &[u8] = b"PBUF";

/// The region id that sorts after every real one: the start of a reversed meta scan.
const NINES: &[u8] = b"99999999999999";
/// The region id that sorts before every real one.
const ZEROES: &[u8] = b"00000000000000";
/// The length of an encoded region name (an MD5 in hex).
const ENCODED_NAME_LEN: usize = 32;

/// The table name as HBase writes it in region names: `namespace:qualifier`, or only the
/// qualifier in the `default` namespace.
pub fn table_name_bytes(table: &pb::TableName) -> Vec<u8> {
    if table.namespace.as_ref() == b"default" || table.namespace.is_empty() {
        return table.qualifier.to_vec();
    }
    let mut name = Vec::with_capacity(table.namespace.len() + 1 + table.qualifier.len());
    name.extend_from_slice(&table.namespace);
    name.push(b':');
    name.extend_from_slice(&table.qualifier);
    name
}

fn region_name(table: &[u8], row: &[u8], id: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(table.len() + row.len() + id.len() + 2);
    key.extend_from_slice(table);
    key.push(b',');
    key.extend_from_slice(row);
    key.push(b',');
    key.extend_from_slice(id);
    key
}

/// Where a reversed meta scan starts to find the region holding `row` of `table`
/// (`table,row,99999999999999`): the first meta row at or before it is that region's.
pub fn meta_key_for_row(table: &[u8], row: &[u8]) -> Vec<u8> {
    region_name(table, row, NINES)
}

/// Where a reversed meta scan starts to find the region *before* `row`, the one a
/// reversed scan of the table moves to next (`table,row,00000000000000`; for an empty
/// row, the last region: `table` followed by a zero byte).
pub fn meta_key_before_row(table: &[u8], row: &[u8]) -> Vec<u8> {
    if row.is_empty() {
        let mut key = table.to_vec();
        key.push(0);
        return key;
    }
    region_name(table, row, ZEROES)
}

/// Where a reversed meta scan for `table` stops (inclusive): `table,,`, before the
/// table's first region.
pub fn meta_stop_key(table: &[u8]) -> Vec<u8> {
    region_name(table, b"", b"")
}

/// A region name taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionName {
    /// The table, as in [`table_name_bytes`].
    pub table: Bytes,
    /// The region's start key (empty for the table's first region).
    pub start_key: Bytes,
    /// The region id (its creation time in ms), as decimal text.
    pub region_id: Bytes,
    /// The replica id (0 for the primary).
    pub replica_id: u16,
    /// The encoded name (32 hex digits), in names of the current format.
    pub encoded: Option<Bytes>,
}

impl RegionName {
    /// Parses `table,startkey,regionid[_replica][.encoded.]`. The start key may hold
    /// commas; the table and region id cannot.
    pub fn parse(name: &Bytes) -> Result<RegionName, MetaError> {
        let bad = |reason| MetaError::BadRegionName { reason };
        let first_comma = name.iter().position(|&b| b == b',').ok_or(bad("no comma"))?;
        let mut end = name.len();
        let mut encoded = None;
        if name.last() == Some(&b'.') && name.len() >= ENCODED_NAME_LEN + 2 {
            let dot = name.len() - ENCODED_NAME_LEN - 2;
            let candidate = &name[dot + 1..name.len() - 1];
            if name[dot] == b'.' && candidate.iter().all(u8::is_ascii_hexdigit) {
                encoded = Some(name.slice(dot + 1..name.len() - 1));
                end = dot;
            }
        }
        let last_comma = name[..end]
            .iter()
            .rposition(|&b| b == b',')
            .filter(|&at| at > first_comma)
            .ok_or(bad("no comma before the region id"))?;
        let id_part = &name[last_comma + 1..end];
        let (id_len, replica_id) = match id_part.iter().position(|&b| b == b'_') {
            Some(underscore) => {
                let hex = std::str::from_utf8(&id_part[underscore + 1..]).map_err(|_| bad("replica id is not text"))?;
                let replica = u16::from_str_radix(hex, 16).map_err(|_| bad("replica id is not hex"))?;
                (underscore, replica)
            }
            None => (id_part.len(), 0),
        };
        let region_id = name.slice(last_comma + 1..last_comma + 1 + id_len);
        if region_id.is_empty() || !region_id.iter().all(u8::is_ascii_digit) {
            return Err(bad("region id is not a number"));
        }
        Ok(RegionName {
            table: name.slice(..first_comma),
            start_key: name.slice(first_comma + 1..last_comma),
            region_id,
            replica_id,
            encoded,
        })
    }
}

/// A region server's address as meta records it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerName {
    /// Host name.
    pub host: String,
    /// RPC port.
    pub port: u16,
    /// The server's start code (which tells a restarted server from its predecessor),
    /// when meta has it.
    pub start_code: Option<i64>,
}

/// Where one replica of a region is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaLocation {
    /// The replica id (0 for the primary).
    pub replica_id: u16,
    /// The server, or `None` while the replica is not assigned.
    pub server: Option<ServerName>,
    /// The sequence number when the replica was opened there, when meta has it.
    pub seq_num: Option<i64>,
}

/// One `hbase:meta` row: a region and where its replicas are.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaRow {
    /// The row key (the region name).
    pub row: Bytes,
    /// `info:regioninfo`: the table, the start and end keys, the offline and split flags.
    pub region_info: pb::RegionInfo,
    /// The primary's location first (always present), then each replica meta names.
    pub locations: Vec<ReplicaLocation>,
}

impl MetaRow {
    /// Reads a meta row from its cells (as decoded from a cell block). The first cell of
    /// each column wins: a scan returns the newest version first.
    pub fn from_cells(cells: &[Cell]) -> Result<MetaRow, MetaError> {
        let row = cells.first().map(Cell::row_bytes).unwrap_or_default();
        Self::from_columns(row, cells.iter().map(|cell| (cell.family(), cell.qualifier(), cell.value())))
    }

    /// Reads a meta row from `(family, qualifier, value)` columns in any order; the first
    /// of each column wins. Columns of other families are ignored.
    pub fn from_columns<'a>(
        row: Bytes,
        columns: impl IntoIterator<Item = (&'a [u8], &'a [u8], &'a [u8])>,
    ) -> Result<MetaRow, MetaError> {
        let mut region_info = None;
        let mut replicas: BTreeMap<u16, ReplicaColumns> = BTreeMap::new();
        replicas.insert(0, ReplicaColumns::default());
        for (family, qualifier, value) in columns {
            if family != CATALOG_FAMILY {
                continue;
            }
            let Some((column, replica_id)) = split_qualifier(qualifier) else {
                continue;
            };
            let qualifier_text = || String::from_utf8_lossy(qualifier).into_owned();
            let replica = replicas.entry(replica_id).or_default();
            match column {
                Column::RegionInfo => {
                    if replica_id == 0 && region_info.is_none() {
                        region_info = Some(parse_region_info(value)?);
                    }
                }
                Column::Server => {
                    if replica.server.is_none() {
                        let server = parse_host_port(value)
                            .map_err(|()| MetaError::BadServer { qualifier: qualifier_text() })?;
                        replica.server = Some(server);
                    }
                }
                Column::StartCode => {
                    if replica.start_code.is_none() && !value.is_empty() {
                        replica.start_code = Some(parse_long(value, qualifier_text)?);
                    }
                }
                Column::SeqNum => {
                    if replica.seq_num.is_none() && !value.is_empty() {
                        replica.seq_num = Some(parse_long(value, qualifier_text)?);
                    }
                }
            }
        }
        let region_info = region_info.ok_or(MetaError::MissingRegionInfo)?;
        let locations = replicas
            .into_iter()
            .map(|(replica_id, columns)| ReplicaLocation {
                replica_id,
                server: columns.server.flatten().map(|(host, port)| ServerName {
                    host,
                    port,
                    start_code: columns.start_code,
                }),
                seq_num: columns.seq_num,
            })
            .collect();
        Ok(MetaRow { row, region_info, locations })
    }

    /// The primary replica's server, if the region is assigned.
    pub fn primary(&self) -> Option<&ServerName> {
        self.locations.first().and_then(|location| location.server.as_ref())
    }

    /// Whether the region's key range holds `row` (start inclusive, end exclusive, an
    /// empty end meaning the end of the table).
    pub fn contains_row(&self, row: &[u8]) -> bool {
        let start = &self.region_info.start_key;
        let end = &self.region_info.end_key;
        let start = start.as_deref().unwrap_or_default();
        let end = end.as_deref().unwrap_or_default();
        row >= start && (end.is_empty() || row < end)
    }

    /// Whether the region is offline or split (a parent whose daughters took over): such
    /// a row must not be used as a location.
    pub fn is_offline_or_split(&self) -> bool {
        self.region_info.offline.unwrap_or(false) || self.region_info.split.unwrap_or(false)
    }
}

/// The columns of one replica, first value of each.
#[derive(Debug, Default)]
struct ReplicaColumns {
    /// `Some(None)`: the column is there but empty (not assigned).
    server: Option<Option<(String, u16)>>,
    start_code: Option<i64>,
    seq_num: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    RegionInfo,
    Server,
    StartCode,
    SeqNum,
}

/// `server_0001` -> (Server, 1); `server` -> (Server, 0); columns this crate does not
/// read (`sn`, `state`, split and merge columns) -> None.
fn split_qualifier(qualifier: &[u8]) -> Option<(Column, u16)> {
    let (name, replica_id) = match qualifier.iter().position(|&b| b == b'_') {
        Some(underscore) => {
            let hex = &qualifier[underscore + 1..];
            if hex.len() != 4 {
                return None;
            }
            let hex = std::str::from_utf8(hex).ok()?;
            (&qualifier[..underscore], u16::from_str_radix(hex, 16).ok()?)
        }
        None => (qualifier, 0),
    };
    let column = match name {
        b"regioninfo" => Column::RegionInfo,
        b"server" => Column::Server,
        b"serverstartcode" => Column::StartCode,
        b"seqnumDuringOpen" => Column::SeqNum,
        _ => return None,
    };
    Some((column, replica_id))
}

/// Decodes `info:regioninfo`: `PBUF` and then a `RegionInfo` message.
pub fn parse_region_info(value: &[u8]) -> Result<pb::RegionInfo, MetaError> {
    let message = value.strip_prefix(PB_MAGIC).ok_or(MetaError::NoPbufMagic)?;
    pb::RegionInfo::decode(message).map_err(|error| MetaError::BadRegionInfo { reason: error.to_string() })
}

/// `host:port` -> Some((host, port)); an empty value (an unassigned replica) -> None.
fn parse_host_port(value: &[u8]) -> Result<Option<(String, u16)>, ()> {
    if value.is_empty() {
        return Ok(None);
    }
    let text = std::str::from_utf8(value).map_err(|_| ())?;
    let (host, port) = text.rsplit_once(':').ok_or(())?;
    let port = port.parse::<u16>().map_err(|_| ())?;
    if host.is_empty() {
        return Err(());
    }
    Ok(Some((host.to_owned(), port)))
}

fn parse_long(value: &[u8], qualifier: impl Fn() -> String) -> Result<i64, MetaError> {
    let bytes: [u8; 8] =
        value.try_into().map_err(|_| MetaError::BadLong { qualifier: qualifier(), length: value.len() })?;
    Ok(i64::from_be_bytes(bytes))
}

#[cfg(test)]
#[path = "meta_tests.rs"]
mod tests;
