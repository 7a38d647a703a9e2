//! Region locations: parsing `hbase:meta` rows, and the per-table cache ordered by
//! start key.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Mutex;

use basalt_rpc_protocol::meta::{self, MetaRow};
use bytes::Bytes;

use crate::cells::RowResult;
use crate::pb;

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

    /// The region's id (its creation time in ms) from its name; 0 when the name does
    /// not hold one.
    pub fn region_id(&self) -> i64 {
        basalt_rpc_protocol::meta::RegionName::parse(&self.region_name)
            .ok()
            .and_then(|name| std::str::from_utf8(&name.region_id).ok().and_then(|id| id.parse().ok()))
            .unwrap_or(0)
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
    String::from_utf8_lossy(&meta::table_name_bytes(table)).into_owned()
}

/// What a meta row said about a region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MetaLookup {
    /// An online region with a server.
    Located(RegionLocation),
    /// The region is offline, a split parent, or not assigned: not usable yet.
    Unusable(String),
}

/// Reads one `hbase:meta` row (the protocol crate parses its columns).
pub(crate) fn parse_meta_row(row: &RowResult) -> Result<MetaLookup, String> {
    let parsed = MetaRow::from_cells(&row.cells).map_err(|e| e.to_string())?;
    let table = table_name_string(&parsed.region_info.table_name);
    let name = String::from_utf8_lossy(&parsed.row).into_owned();
    if parsed.is_offline_or_split() {
        return Ok(MetaLookup::Unusable(format!("region {name} of {table} is offline or split")));
    }
    let Some(server) = parsed.primary() else {
        return Ok(MetaLookup::Unusable(format!("region {name} of {table} has no server yet")));
    };
    Ok(MetaLookup::Located(RegionLocation {
        region_name: parsed.row.clone(),
        server: format!("{}:{}", server.host, server.port),
        table,
        start_key: parsed.region_info.start_key.clone().unwrap_or_default(),
        end_key: parsed.region_info.end_key.clone().unwrap_or_default(),
    }))
}

/// Where a reversed meta scan for the region holding `row` starts.
pub(crate) fn meta_key_at(table: &str, row: &[u8]) -> Bytes {
    Bytes::from(meta::meta_key_for_row(table.as_bytes(), row))
}

/// Where a reversed meta scan for the region before `row` starts (for an empty `row`,
/// the table's last region).
pub(crate) fn meta_key_before(table: &str, row: &[u8]) -> Bytes {
    Bytes::from(meta::meta_key_before_row(table.as_bytes(), row))
}

/// The lowest meta row of `table` (a reversed scan stops there, inclusive).
pub(crate) fn meta_table_floor(table: &str) -> Bytes {
    Bytes::from(meta::meta_stop_key(table.as_bytes()))
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
