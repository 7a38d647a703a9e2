//! Region locations: parsing `hbase:meta` rows, and the per-table cache ordered by
//! start key.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Mutex;

use basalt_rpc_protocol::meta::{self, MetaRow, RegionName};
use bytes::Bytes;
use md5::{Digest, Md5};

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
    /// Which replica of the region this is (0: the primary).
    pub replica_id: u16,
    /// For a primary: its secondary replicas that meta says are assigned, as
    /// `(replica id, host:port)` in id order (empty without read replicas). Empty for a
    /// secondary's own location.
    pub replicas: Vec<(u16, String)>,
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

    /// The location of replica `id` of this region (0: the primary itself), when meta
    /// named a server for it. A secondary's region name is the primary's with `_XXXX`
    /// (the id in four hex digits) after the region id, and its own encoded name (the
    /// MD5 of everything before it), as HBase's `RegionInfo.createRegionName` builds it.
    pub fn replica(&self, id: u16) -> Option<RegionLocation> {
        if id == self.replica_id {
            return Some(self.clone());
        }
        let server = self.replicas.iter().find(|(replica, _)| *replica == id)?.1.clone();
        let region_name = replica_region_name(&self.region_name, id)?;
        Some(RegionLocation {
            region_name,
            table: self.table.clone(),
            start_key: self.start_key.clone(),
            end_key: self.end_key.clone(),
            server,
            replica_id: id,
            replicas: Vec::new(),
        })
    }

    /// The region specifier naming this region in a request.
    pub(crate) fn specifier(&self) -> pb::RegionSpecifier {
        pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: self.region_name.clone(),
        }
    }
}

/// The region name of replica `id` of the region named `primary` (new format:
/// `table,start,regionid_XXXX.md5.`); `None` when `primary` is not a region name.
pub(crate) fn replica_region_name(primary: &Bytes, id: u16) -> Option<Bytes> {
    let name = RegionName::parse(primary).ok()?;
    let mut plain = Vec::with_capacity(name.table.len() + name.start_key.len() + name.region_id.len() + 40);
    plain.extend_from_slice(&name.table);
    plain.push(b',');
    plain.extend_from_slice(&name.start_key);
    plain.push(b',');
    plain.extend_from_slice(&name.region_id);
    if id > 0 {
        plain.extend_from_slice(format!("_{id:04X}").as_bytes());
    }
    let digest = Md5::digest(&plain);
    plain.push(b'.');
    for byte in digest {
        plain.extend_from_slice(format!("{byte:02x}").as_bytes());
    }
    plain.push(b'.');
    Some(Bytes::from(plain))
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

/// Reads one `hbase:meta` row (the protocol crate parses its columns). A replica's
/// column that does not parse costs only that row's replicas: the primary's columns are
/// read again alone.
pub(crate) fn parse_meta_row(row: &RowResult) -> Result<MetaLookup, String> {
    let parsed = MetaRow::from_cells(&row.cells).or_else(|error| {
        let key = row.cells.first().map(|cell| cell.row_bytes()).unwrap_or_default();
        let primary_columns = row
            .cells
            .iter()
            .filter(|cell| !cell.qualifier().contains(&b'_'))
            .map(|cell| (cell.family(), cell.qualifier(), cell.value()));
        MetaRow::from_columns(key, primary_columns).map_err(|_| error.to_string())
    })?;
    locate_from(&parsed)
}

/// The location a parsed meta row gives.
fn locate_from(parsed: &MetaRow) -> Result<MetaLookup, String> {
    let table = table_name_string(&parsed.region_info.table_name);
    let name = String::from_utf8_lossy(&parsed.row).into_owned();
    if parsed.is_offline_or_split() {
        return Ok(MetaLookup::Unusable(format!("region {name} of {table} is offline or split")));
    }
    let Some(server) = parsed.primary() else {
        return Ok(MetaLookup::Unusable(format!("region {name} of {table} has no server yet")));
    };
    let replicas = parsed
        .locations
        .iter()
        .filter(|location| location.replica_id > 0)
        .filter_map(|location| {
            let server = location.server.as_ref()?;
            Some((location.replica_id, format!("{}:{}", server.host, server.port)))
        })
        .collect();
    Ok(MetaLookup::Located(RegionLocation {
        region_name: parsed.row.clone(),
        server: format!("{}:{}", server.host, server.port),
        table,
        start_key: parsed.region_info.start_key.clone().unwrap_or_default(),
        end_key: parsed.region_info.end_key.clone().unwrap_or_default(),
        replica_id: 0,
        replicas,
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
        holding(self.lock().get(table)?, row).cloned()
    }

    /// A number standing for the region server the cached region holding `row` is on
    /// (a hash of its address: equal servers, equal numbers), without copying the
    /// region; `None` when no cached region holds `row`.
    pub fn server_id(&self, table: &str, row: &[u8]) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let tables = self.lock();
        let region = holding(tables.get(table)?, row)?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        region.server.hash(&mut hasher);
        Some(hasher.finish())
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

    /// Drops `region` from the cache if it is still the cached entry (for a secondary
    /// replica: its primary's entry, which lists where the replicas are).
    pub fn invalidate(&self, region: &RegionLocation) {
        let mut tables = self.lock();
        if let Some(regions) = tables.get_mut(&region.table) {
            let same = |cached: &RegionLocation| match region.replica_id {
                0 => cached.region_name == region.region_name,
                _ => cached.start_key == region.start_key && cached.end_key == region.end_key,
            };
            if regions.get(&region.start_key).is_some_and(same) {
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

    /// Drops every region cached on `server` (its connection failed), and every
    /// region with a replica there.
    pub fn forget_server(&self, server: &str) {
        for regions in self.lock().values_mut() {
            regions.retain(|_, region| region.server != server && region.replicas.iter().all(|(_, s)| s != server));
        }
    }

    /// Drops every cached region of `table` (after an admin call that deleted,
    /// truncated, split, merged or moved its regions).
    pub fn forget_table(&self, table: &str) {
        self.lock().remove(table);
    }

    /// How many regions are cached for `table`.
    pub fn len(&self, table: &str) -> usize {
        self.lock().get(table).map_or(0, BTreeMap::len)
    }
}

/// The region of `regions` (one table's, by start key) holding `row`.
fn holding<'a>(regions: &'a BTreeMap<Bytes, RegionLocation>, row: &[u8]) -> Option<&'a RegionLocation> {
    let (_, region) = regions.range::<[u8], _>((Bound::Unbounded, Bound::Included(row))).next_back()?;
    region.contains(row).then_some(region)
}

/// A primary region of table `t` from `start` to `end` on `server`, for tests.
#[cfg(test)]
pub(crate) fn test_region(start: &str, end: &str, server: &str) -> RegionLocation {
    RegionLocation {
        region_name: Bytes::from(format!("t,{start},1.{server}.")),
        table: "t".into(),
        start_key: Bytes::copy_from_slice(start.as_bytes()),
        end_key: Bytes::copy_from_slice(end.as_bytes()),
        server: server.into(),
        replica_id: 0,
        replicas: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::test_region as region;
    use super::*;

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
    fn server_ids_tell_servers_apart_and_know_only_cached_rows() {
        let cache = RegionCache::default();
        cache.insert(region("", "g", "a:1"));
        cache.insert(region("g", "p", "b:1"));
        cache.insert(region("p", "x", "a:1"));
        let a = cache.server_id("t", b"c").expect("cached");
        assert_eq!(cache.server_id("t", b"q"), Some(a), "same server, same id");
        assert_ne!(cache.server_id("t", b"h"), Some(a));
        assert_eq!(cache.server_id("t", b"y"), None, "past the last cached region");
        assert_eq!(cache.server_id("other", b"c"), None);
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

    /// A meta row of region `users,m,1700000000000` with these extra `info` columns.
    fn meta_row(extra: &[(&[u8], &[u8])]) -> RowResult {
        use basalt_rpc_protocol::cellblock::{decode_cell_block, encode_cell, CellCodec, CellParts, CellType};
        use prost::Message;
        let info = pb::RegionInfo {
            region_id: 1_700_000_000_000,
            table_name: pb::TableName {
                namespace: Bytes::from_static(b"default"),
                qualifier: Bytes::from_static(b"users"),
            },
            start_key: Some(Bytes::from_static(b"m")),
            end_key: Some(Bytes::from_static(b"t")),
            ..Default::default()
        };
        let mut region_info = b"PBUF".to_vec();
        region_info.extend_from_slice(&info.encode_to_vec());
        let mut block = bytes::BytesMut::new();
        let row = b"users,m,1700000000000.0123456789abcdef0123456789abcdef.";
        let columns = [(&b"regioninfo"[..], &region_info[..]), (b"server", b"rs0:16020")];
        for (qualifier, value) in columns.iter().chain(extra) {
            let parts =
                CellParts { row, family: b"info", qualifier, timestamp: 1, cell_type: CellType::Put, value, tags: b"" };
            encode_cell(CellCodec::KeyValue, &parts, &mut block).unwrap();
        }
        RowResult {
            cells: decode_cell_block(block.freeze(), CellCodec::KeyValue).unwrap().into(),
            partial: false,
            stale: false,
        }
    }

    fn located(row: &RowResult) -> RegionLocation {
        match parse_meta_row(row) {
            Ok(MetaLookup::Located(location)) => location,
            other => panic!("not located: {other:?}"),
        }
    }

    #[test]
    fn replica_columns_give_the_secondaries_and_their_region_names() {
        let row = meta_row(&[
            (b"server_0001", b"rs1:16020"),
            (b"serverstartcode_0001", &7i64.to_be_bytes()),
            (b"seqnumDuringOpen_0001", &9i64.to_be_bytes()),
            // Replica 2 is not assigned yet: no server, not listed.
            (b"server_0002", b""),
        ]);
        let primary = located(&row);
        assert_eq!((primary.replica_id, &primary.server[..]), (0, "rs0:16020"));
        assert_eq!(primary.replicas, vec![(1, "rs1:16020".to_owned())]);
        let secondary = primary.replica(1).unwrap();
        assert_eq!((secondary.replica_id, &secondary.server[..]), (1, "rs1:16020"));
        assert_eq!((&secondary.start_key[..], &secondary.end_key[..]), (&b"m"[..], &b"t"[..]));
        // HBase's name of replica 1: `users,m,1700000000000_0001.` and the MD5 of that
        // prefix (computed independently: Python's hashlib).
        assert_eq!(secondary.region_name, "users,m,1700000000000_0001.97f392c191ed249094b761615fd292ce.");
        assert_eq!(secondary.region_id(), 1_700_000_000_000);
        assert!(primary.replica(2).is_none() && primary.replica(3).is_none());
        assert_eq!(primary.replica(0), Some(primary.clone()));
    }

    #[test]
    fn replica_names_follow_hbase_for_other_tables_and_ids() {
        // md5("ns:t,row\0,1700000000123_000A") from Python's hashlib.
        let primary = Bytes::from_static(b"ns:t,row\0,1700000000123.00000000000000000000000000000000.");
        assert_eq!(
            replica_region_name(&primary, 10).unwrap(),
            Bytes::from_static(b"ns:t,row\0,1700000000123_000A.b6d784873ab6f5ed7e544a006fd9fe13.")
        );
        assert!(replica_region_name(&Bytes::from_static(b"no commas"), 1).is_none());
    }

    #[test]
    fn a_hostile_replica_column_costs_only_the_replicas() {
        for (qualifier, value) in [
            (&b"server_0001"[..], &b"no port"[..]),
            (b"server_0001", b":16020"),
            (b"server_0001", b"rs1:99999"),
            (b"server_0001", &[0xff, 0xfe, b':', b'1'][..]),
            (b"serverstartcode_0001", &[1, 2, 3][..]),
            (b"seqnumDuringOpen_0001", &[0; 9][..]),
        ] {
            let primary = located(&meta_row(&[(qualifier, value)]));
            assert_eq!(primary.server, "rs0:16020", "{qualifier:?} = {value:?}");
            assert!(primary.replicas.is_empty(), "{qualifier:?} = {value:?}");
        }
        // Suffixes that are not a replica id are other columns: ignored.
        for qualifier in [&b"server_1"[..], b"server_00001", b"server_zzzz", b"server_", b"_0001"] {
            assert!(located(&meta_row(&[(qualifier, b"rs9:1")])).replicas.is_empty(), "{qualifier:?}");
        }
        // Arbitrary bytes in replica columns never panic and never lose the primary.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..500 {
            let mut bytes = Vec::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                bytes.push((seed >> 32) as u8);
            }
            let id = format!("server_{:04X}", seed % 4);
            let primary = located(&meta_row(&[(id.as_bytes(), &bytes)]));
            assert_eq!(primary.server, "rs0:16020");
        }
    }

    #[test]
    fn a_replica_failure_drops_its_primarys_entry() {
        let cache = RegionCache::default();
        let mut primary = region("", "", "a:1");
        primary.replicas = vec![(1, "b:1".into())];
        cache.insert(primary.clone());
        let secondary = RegionLocation { replica_id: 1, server: "b:1".into(), ..region("", "", "b:1") };
        // A move of the secondary never points the primary at the secondary's server.
        cache.moved(&secondary, "c:1");
        assert_eq!(cache.find("t", b"x").unwrap().server, "a:1");
        cache.invalidate(&secondary);
        assert_eq!(cache.len("t"), 0);
        cache.insert(primary);
        cache.forget_server("b:1");
        assert_eq!(cache.len("t"), 0, "a region with a replica on a lost server is read again");
    }

    #[test]
    fn meta_keys() {
        assert_eq!(meta_key_at("t", b"r"), "t,r,99999999999999");
        assert_eq!(meta_key_before("t", b"r"), "t,r,00000000000000");
        assert_eq!(meta_key_before("t", b""), "t\0");
        assert_eq!(meta_table_floor("ns:t"), "ns:t,,");
    }
}
