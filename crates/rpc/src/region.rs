//! Region locations: parsing `hbase:meta` rows, and the per-table cache ordered by
//! start key.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Mutex;

use bytes::{Bytes, BytesMut};
use prost::Message;

use crate::cells::RowResult;
use crate::pb;

/// The catalog family of `hbase:meta`.
pub(crate) const CATALOG_FAMILY: &[u8] = b"info";

/// Where one region of a table is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLocation {
    /// The region's name (its `hbase:meta` row key), used to address it in calls.
    pub region_name: Bytes,
    /// The table, as `namespace:qualifier` (`default:` omitted).
    pub table: String,
    /// First row of the region (empty: the table's start).
    pub start_key: Bytes,
    /// First row after the region (empty: the table's end).
    pub end_key: Bytes,
    /// `host:port` of the region server.
    pub server: String,
}

impl RegionLocation {
    /// Whether `row` falls inside this region.
    pub fn contains(&self, row: &[u8]) -> bool {
        self.start_key.as_ref() <= row && (self.end_key.is_empty() || row < self.end_key.as_ref())
    }

    /// The region specifier naming this region in a request.
    pub(crate) fn specifier(&self) -> pb::RegionSpecifier {
        pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: self.region_name.clone(),
        }
    }
}

/// The table's name as meta spells it: `qualifier` in the default namespace, else
/// `namespace:qualifier`.
pub(crate) fn table_name_string(table: &pb::TableName) -> String {
    let namespace = String::from_utf8_lossy(&table.namespace);
    let qualifier = String::from_utf8_lossy(&table.qualifier);
    if namespace == "default" || namespace.is_empty() {
        qualifier.into_owned()
    } else {
        format!("{namespace}:{qualifier}")
    }
}

/// What a meta row said about a region, or why it is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MetaRow {
    /// An online region with a server.
    Located(RegionLocation),
    /// The region is offline or a split parent: the location is not usable yet.
    Unusable(String),
}

/// Parses one `hbase:meta` row: `info:regioninfo` holds `PBUF` and a `RegionInfo`,
/// `info:server` the `host:port` of its server.
pub(crate) fn parse_meta_row(row: &RowResult) -> Result<MetaRow, String> {
    let region_name = row.cells.first().map(|c| c.row_bytes()).ok_or("an empty meta row")?;
    let info = row.value(CATALOG_FAMILY, b"regioninfo").ok_or("a meta row without info:regioninfo")?;
    let body = info.strip_prefix(b"PBUF").ok_or("info:regioninfo lacks the PBUF prefix")?;
    let region = pb::RegionInfo::decode(body).map_err(|e| format!("undecodable RegionInfo: {e}"))?;
    let table = table_name_string(&region.table_name);
    if region.offline == Some(true) || region.split == Some(true) {
        return Ok(MetaRow::Unusable(format!(
            "region {} of {table} is offline or split",
            String::from_utf8_lossy(&region_name)
        )));
    }
    let Some(server) = row.value(CATALOG_FAMILY, b"server") else {
        return Ok(MetaRow::Unusable(format!(
            "region {} of {table} has no server yet",
            String::from_utf8_lossy(&region_name)
        )));
    };
    let server = std::str::from_utf8(server).map_err(|_| "info:server is not UTF-8")?.to_owned();
    Ok(MetaRow::Located(RegionLocation {
        region_name,
        table,
        start_key: region.start_key.unwrap_or_default(),
        end_key: region.end_key.unwrap_or_default(),
        server,
    }))
}

/// The meta row where a reversed scan for the region holding `row` starts:
/// `table,row,99999999999999` (after every region id starting at `row`).
pub(crate) fn meta_key_at(table: &str, row: &[u8]) -> Bytes {
    let mut key = BytesMut::with_capacity(table.len() + row.len() + 16);
    key.extend_from_slice(table.as_bytes());
    key.extend_from_slice(b",");
    key.extend_from_slice(row);
    key.extend_from_slice(b",99999999999999");
    key.freeze()
}

/// The start of a reversed meta scan for the region holding the greatest row before
/// `row`: `table,row,00000000000000` (before every region starting at `row`); for an
/// empty `row`, the table's last region (`table` and a zero byte, which the meta
/// comparator orders after every row of `table`).
pub(crate) fn meta_key_before(table: &str, row: &[u8]) -> Bytes {
    if row.is_empty() {
        let mut key = BytesMut::from(table.as_bytes());
        key.extend_from_slice(&[0]);
        return key.freeze();
    }
    let mut key = BytesMut::with_capacity(table.len() + row.len() + 16);
    key.extend_from_slice(table.as_bytes());
    key.extend_from_slice(b",");
    key.extend_from_slice(row);
    key.extend_from_slice(b",00000000000000");
    key.freeze()
}

/// The lowest meta row of `table`: `table,,` (a reversed scan stops there, inclusive).
pub(crate) fn meta_table_floor(table: &str) -> Bytes {
    Bytes::from(format!("{table},,"))
}

/// Cached region locations, per table ordered by start key.
#[derive(Debug, Default)]
pub(crate) struct RegionCache {
    tables: Mutex<HashMap<String, BTreeMap<Bytes, RegionLocation>>>,
}

impl RegionCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, BTreeMap<Bytes, RegionLocation>>> {
        match self.tables.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The cached region holding `row`.
    pub fn find(&self, table: &str, row: &[u8]) -> Option<RegionLocation> {
        let tables = self.lock();
        let regions = tables.get(table)?;
        let (_, region) = regions.range::<[u8], _>((Bound::Unbounded, Bound::Included(row))).next_back()?;
        region.contains(row).then(|| region.clone())
    }

    /// The cached region holding the greatest row before `row` (for an empty `row`, the
    /// table's last region).
    pub fn find_before(&self, table: &str, row: &[u8]) -> Option<RegionLocation> {
        let tables = self.lock();
        let regions = tables.get(table)?;
        let (_, region) = if row.is_empty() {
            regions.iter().next_back()?
        } else {
            regions.range::<[u8], _>((Bound::Unbounded, Bound::Excluded(row))).next_back()?
        };
        let reaches = region.end_key.is_empty() || (!row.is_empty() && region.end_key.as_ref() >= row);
        reaches.then(|| region.clone())
    }

    /// Caches `region`, dropping cached regions it overlaps (from before a split or merge).
    pub fn insert(&self, region: RegionLocation) {
        let mut tables = self.lock();
        let regions = tables.entry(region.table.clone()).or_default();
        let overlapping: Vec<Bytes> = regions
            .values()
            .filter(|other| {
                let starts_before_end = region.end_key.is_empty() || other.start_key < region.end_key;
                let ends_after_start = other.end_key.is_empty() || other.end_key > region.start_key;
                starts_before_end && ends_after_start
            })
            .map(|other| other.start_key.clone())
            .collect();
        for start in overlapping {
            regions.remove(&start);
        }
        regions.insert(region.start_key.clone(), region);
    }

    /// Drops `region` from the cache if it is still the cached entry.
    pub fn invalidate(&self, region: &RegionLocation) {
        let mut tables = self.lock();
        if let Some(regions) = tables.get_mut(&region.table) {
            if regions.get(&region.start_key).is_some_and(|cached| cached.region_name == region.region_name) {
                regions.remove(&region.start_key);
            }
        }
    }

    /// Points `region` at `server` (a `RegionMovedException` names the new server).
    pub fn moved(&self, region: &RegionLocation, server: &str) {
        let mut tables = self.lock();
        if let Some(cached) = tables.get_mut(&region.table).and_then(|regions| regions.get_mut(&region.start_key)) {
            if cached.region_name == region.region_name {
                cached.server = server.to_owned();
            }
        }
    }

    /// Drops every region cached on `server` (its connection failed).
    pub fn forget_server(&self, server: &str) {
        for regions in self.lock().values_mut() {
            regions.retain(|_, region| region.server != server);
        }
    }

    /// How many regions are cached for `table`.
    pub fn len(&self, table: &str) -> usize {
        self.lock().get(table).map_or(0, BTreeMap::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &str, end: &str, server: &str) -> RegionLocation {
        RegionLocation {
            region_name: Bytes::from(format!("t,{start},1.{server}.")),
            table: "t".into(),
            start_key: Bytes::copy_from_slice(start.as_bytes()),
            end_key: Bytes::copy_from_slice(end.as_bytes()),
            server: server.into(),
        }
    }

    #[test]
    fn finds_regions_by_row_and_before_row() {
        let cache = RegionCache::default();
        cache.insert(region("", "g", "a:1"));
        cache.insert(region("g", "p", "b:1"));
        cache.insert(region("p", "", "a:1"));
        assert_eq!(cache.find("t", b"").unwrap().start_key, "");
        assert_eq!(cache.find("t", b"g").unwrap().start_key, "g");
        assert_eq!(cache.find("t", b"zz").unwrap().start_key, "p");
        assert_eq!(cache.find_before("t", b"g").unwrap().start_key, "");
        assert_eq!(cache.find_before("t", b"h").unwrap().start_key, "g");
        assert_eq!(cache.find_before("t", b"").unwrap().start_key, "p");
        assert!(cache.find("other", b"a").is_none());
    }

    #[test]
    fn a_split_replaces_its_parent_and_failures_invalidate() {
        let cache = RegionCache::default();
        cache.insert(region("", "", "a:1"));
        cache.insert(region("", "m", "a:1"));
        // The parent is gone: "x" is not covered until the daughter is cached.
        assert!(cache.find("t", b"x").is_none());
        cache.insert(region("m", "", "b:1"));
        assert_eq!(cache.len("t"), 2);
        let right = cache.find("t", b"x").unwrap();
        cache.moved(&right, "c:1");
        assert_eq!(cache.find("t", b"x").unwrap().server, "c:1");
        cache.forget_server("a:1");
        assert!(cache.find("t", b"a").is_none());
        let right = cache.find("t", b"x").unwrap();
        cache.invalidate(&right);
        assert_eq!(cache.len("t"), 0);
    }

    #[test]
    fn meta_keys() {
        assert_eq!(meta_key_at("t", b"r"), "t,r,99999999999999");
        assert_eq!(meta_key_before("t", b"r"), "t,r,00000000000000");
        assert_eq!(meta_key_before("t", b""), "t\0");
        assert_eq!(meta_table_floor("ns:t"), "ns:t,,");
    }
}
