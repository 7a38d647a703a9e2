//! What [`Admin`](crate::Admin) sends and returns: [`TableDescriptor`] (name,
//! families, table settings) and [`ColumnFamily`] (a family's settings) with the
//! settings' HBase names, and the cluster's status, snapshots and balancer runs
//! (`transport/cluster.rs`). Both transports carry them (`transport/thrift/admin.rs`,
//! `transport/native/admin.rs`).

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::error::{InvalidInput, Result};
use crate::validate;

pub use crate::transport::cluster::{
    BalanceResult, ClusterStatus, RegionInTransition, RegionLoad, ServerStatus, SnapshotInfo,
};

/// Declares an enum of HBase setting values with their HBase names.
macro_rules! hbase_named {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $variant),*
        }

        impl $name {
            /// HBase's name of the value (as the shell and the master spell it).
            pub fn hbase_name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The value HBase names `text` (case-insensitive), if this crate knows it.
            pub fn from_hbase_name(text: &str) -> Option<$name> {
                $(if text.trim().eq_ignore_ascii_case($text) { return Some($name::$variant); })*
                None
            }
        }
    };
}

hbase_named! {
    /// Bloom filter kind of a column family.
    BloomFilter {
        /// No bloom filter.
        None = "NONE",
        /// On row keys (HBase's default): helps gets of whole rows.
        Row = "ROW",
        /// On row + column: helps gets of single columns.
        RowCol = "ROWCOL",
    }
}

hbase_named! {
    /// Compression of a column family's files.
    Compression {
        /// None (default).
        None = "NONE",
        /// Gzip.
        Gz = "GZ",
        /// Snappy (needs native support on the servers).
        Snappy = "SNAPPY",
        /// LZ4 (needs native support on the servers).
        Lz4 = "LZ4",
        /// Zstandard (needs native support on the servers).
        Zstd = "ZSTD",
    }
}

hbase_named! {
    /// In-block key encoding of a column family.
    BlockEncoding {
        /// None (default).
        None = "NONE",
        /// Prefix.
        Prefix = "PREFIX",
        /// Diff.
        Diff = "DIFF",
        /// Fast diff: a good default for long, similar keys.
        FastDiff = "FAST_DIFF",
        /// Row index.
        RowIndexV1 = "ROW_INDEX_V1",
    }
}

/// HBase's names of the family settings [`ColumnFamily`] has typed setters for.
pub(crate) mod family_keys {
    /// `VERSIONS`.
    pub(crate) const VERSIONS: &str = "VERSIONS";
    /// `MIN_VERSIONS`.
    pub(crate) const MIN_VERSIONS: &str = "MIN_VERSIONS";
    /// `TTL` (seconds).
    pub(crate) const TTL: &str = "TTL";
    /// `BLOOMFILTER`.
    pub(crate) const BLOOMFILTER: &str = "BLOOMFILTER";
    /// `COMPRESSION`.
    pub(crate) const COMPRESSION: &str = "COMPRESSION";
    /// `DATA_BLOCK_ENCODING`.
    pub(crate) const DATA_BLOCK_ENCODING: &str = "DATA_BLOCK_ENCODING";
    /// `BLOCKSIZE`.
    pub(crate) const BLOCKSIZE: &str = "BLOCKSIZE";
    /// `IN_MEMORY`.
    pub(crate) const IN_MEMORY: &str = "IN_MEMORY";
    /// `BLOCKCACHE`.
    pub(crate) const BLOCKCACHE: &str = "BLOCKCACHE";
    /// `REPLICATION_SCOPE`.
    pub(crate) const REPLICATION_SCOPE: &str = "REPLICATION_SCOPE";
    /// `DFS_REPLICATION`.
    pub(crate) const DFS_REPLICATION: &str = "DFS_REPLICATION";
}

/// A column family and its settings. Unset settings keep HBase's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFamily {
    pub(crate) name: Bytes,
    pub(crate) max_versions: Option<i32>,
    pub(crate) min_versions: Option<i32>,
    pub(crate) ttl_seconds: Option<i32>,
    pub(crate) bloom: Option<BloomFilter>,
    pub(crate) compression: Option<Compression>,
    pub(crate) encoding: Option<BlockEncoding>,
    pub(crate) block_size: Option<i32>,
    pub(crate) in_memory: Option<bool>,
    pub(crate) block_cache: Option<bool>,
    pub(crate) replication_scope: Option<i32>,
    pub(crate) dfs_replication: Option<i16>,
    /// Other settings by HBase's name (`IS_MOB`, `MOB_THRESHOLD`, ...).
    pub(crate) settings: BTreeMap<String, String>,
}

impl ColumnFamily {
    /// A family named `name` with HBase's default settings.
    pub fn new(name: impl Into<Bytes>) -> ColumnFamily {
        ColumnFamily {
            name: name.into(),
            max_versions: None,
            min_versions: None,
            ttl_seconds: None,
            bloom: None,
            compression: None,
            encoding: None,
            block_size: None,
            in_memory: None,
            block_cache: None,
            replication_scope: None,
            dfs_replication: None,
            settings: BTreeMap::new(),
        }
    }

    /// VERSIONS: how many versions of a cell are kept (HBase default 1).
    pub fn max_versions(mut self, n: u32) -> Self {
        self.max_versions = Some(i32::try_from(n).unwrap_or(i32::MAX));
        self
    }

    /// MIN_VERSIONS kept even past the TTL.
    pub fn min_versions(mut self, n: u32) -> Self {
        self.min_versions = Some(i32::try_from(n).unwrap_or(i32::MAX));
        self
    }

    /// TTL in seconds: cells older than this are dropped at compaction.
    pub fn ttl_seconds(mut self, seconds: u32) -> Self {
        self.ttl_seconds = Some(i32::try_from(seconds).unwrap_or(i32::MAX));
        self
    }

    /// BLOOMFILTER.
    pub fn bloom_filter(mut self, bloom: BloomFilter) -> Self {
        self.bloom = Some(bloom);
        self
    }

    /// COMPRESSION.
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = Some(compression);
        self
    }

    /// DATA_BLOCK_ENCODING.
    pub fn block_encoding(mut self, encoding: BlockEncoding) -> Self {
        self.encoding = Some(encoding);
        self
    }

    /// BLOCKSIZE in bytes (64 KiB default; smaller for gets, larger for scans).
    pub fn block_size(mut self, bytes: u32) -> Self {
        self.block_size = Some(i32::try_from(bytes).unwrap_or(i32::MAX));
        self
    }

    /// IN_MEMORY: favour this family in the block cache.
    pub fn in_memory(mut self, in_memory: bool) -> Self {
        self.in_memory = Some(in_memory);
        self
    }

    /// BLOCKCACHE: whether reads populate the block cache.
    pub fn block_cache(mut self, enabled: bool) -> Self {
        self.block_cache = Some(enabled);
        self
    }

    /// REPLICATION_SCOPE (0 local, 1 global).
    pub fn replication_scope(mut self, scope: u32) -> Self {
        self.replication_scope = Some(i32::try_from(scope).unwrap_or(i32::MAX));
        self
    }

    /// DFS_REPLICATION: HDFS replicas of this family's files.
    pub fn dfs_replication(mut self, replicas: u16) -> Self {
        self.dfs_replication = Some(i16::try_from(replicas).unwrap_or(i16::MAX));
        self
    }

    /// Any other family setting by HBase's name (`IS_MOB` = `true`, ...). For a key
    /// with a typed setter (`VERSIONS`, `TTL`, ...), a value given there wins.
    pub fn setting(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.settings.insert(key.into(), value.into());
        self
    }

    /// The family's name.
    pub fn name(&self) -> &Bytes {
        &self.name
    }

    /// VERSIONS as set or described.
    pub fn get_max_versions(&self) -> Option<i32> {
        self.max_versions
    }
    /// MIN_VERSIONS as set or described.
    pub fn get_min_versions(&self) -> Option<i32> {
        self.min_versions
    }
    /// TTL in seconds as set or described.
    pub fn get_ttl_seconds(&self) -> Option<i32> {
        self.ttl_seconds
    }
    /// BLOOMFILTER as set or described.
    pub fn get_bloom_filter(&self) -> Option<BloomFilter> {
        self.bloom
    }
    /// COMPRESSION as set or described.
    pub fn get_compression(&self) -> Option<Compression> {
        self.compression
    }
    /// DATA_BLOCK_ENCODING as set or described.
    pub fn get_block_encoding(&self) -> Option<BlockEncoding> {
        self.encoding
    }
    /// BLOCKSIZE as set or described.
    pub fn get_block_size(&self) -> Option<i32> {
        self.block_size
    }
    /// IN_MEMORY as set or described.
    pub fn get_in_memory(&self) -> Option<bool> {
        self.in_memory
    }
    /// BLOCKCACHE as set or described.
    pub fn get_block_cache(&self) -> Option<bool> {
        self.block_cache
    }
    /// REPLICATION_SCOPE as set or described.
    pub fn get_replication_scope(&self) -> Option<i32> {
        self.replication_scope
    }
    /// DFS_REPLICATION as set or described.
    pub fn get_dfs_replication(&self) -> Option<i16> {
        self.dfs_replication
    }
    /// The other settings, as set or described.
    pub fn settings(&self) -> &BTreeMap<String, String> {
        &self.settings
    }

    /// Checks the family before it is sent.
    pub(crate) fn check(&self) -> Result<()> {
        validate::family(&self.name)?;
        if self.max_versions == Some(0) {
            return Err(InvalidInput::Option("a family keeps at least 1 version".into()).into());
        }
        check_settings(&self.settings, "family")
    }

    /// Every setting that is set, by HBase's name, as text (the native transport's
    /// attributes).
    pub(crate) fn hbase_settings(&self) -> Vec<(&'static str, String)> {
        use family_keys as k;
        let mut out = Vec::new();
        let mut push = |key: &'static str, value: Option<String>| {
            if let Some(value) = value {
                out.push((key, value));
            }
        };
        push(k::VERSIONS, self.max_versions.map(|v| v.to_string()));
        push(k::MIN_VERSIONS, self.min_versions.map(|v| v.to_string()));
        push(k::TTL, self.ttl_seconds.map(|v| v.to_string()));
        push(k::BLOOMFILTER, self.bloom.map(|v| v.hbase_name().to_owned()));
        push(k::COMPRESSION, self.compression.map(|v| v.hbase_name().to_owned()));
        push(k::DATA_BLOCK_ENCODING, self.encoding.map(|v| v.hbase_name().to_owned()));
        push(k::BLOCKSIZE, self.block_size.map(|v| v.to_string()));
        push(k::IN_MEMORY, self.in_memory.map(|v| v.to_string()));
        push(k::BLOCKCACHE, self.block_cache.map(|v| v.to_string()));
        push(k::REPLICATION_SCOPE, self.replication_scope.map(|v| v.to_string()));
        push(k::DFS_REPLICATION, self.dfs_replication.map(|v| v.to_string()));
        out
    }

    /// A family from HBase's named settings (as the master describes it): the typed
    /// ones parsed (a value that does not parse reads as unset and is kept as a plain
    /// setting), the others kept as they are.
    pub(crate) fn from_hbase_settings(
        name: Bytes,
        settings: impl IntoIterator<Item = (String, String)>,
    ) -> ColumnFamily {
        use family_keys as k;
        let mut family = ColumnFamily::new(name);
        for (key, value) in settings {
            let text = value.trim();
            let parsed = match key.as_str() {
                k::VERSIONS => fill(&mut family.max_versions, text.parse().ok()),
                k::MIN_VERSIONS => fill(&mut family.min_versions, text.parse().ok()),
                k::TTL if text.eq_ignore_ascii_case("FOREVER") => fill(&mut family.ttl_seconds, Some(i32::MAX)),
                k::TTL => fill(&mut family.ttl_seconds, text.parse().ok()),
                k::BLOOMFILTER => fill(&mut family.bloom, BloomFilter::from_hbase_name(text)),
                k::COMPRESSION => fill(&mut family.compression, Compression::from_hbase_name(text)),
                k::DATA_BLOCK_ENCODING => fill(&mut family.encoding, BlockEncoding::from_hbase_name(text)),
                k::BLOCKSIZE => fill(&mut family.block_size, text.parse().ok()),
                k::IN_MEMORY => fill(&mut family.in_memory, text.parse().ok()),
                k::BLOCKCACHE => fill(&mut family.block_cache, text.parse().ok()),
                k::REPLICATION_SCOPE => fill(&mut family.replication_scope, text.parse().ok()),
                k::DFS_REPLICATION => fill(&mut family.dfs_replication, text.parse().ok()),
                // Not a typed setting: kept as it is.
                _other => false,
            };
            if !parsed {
                family.settings.insert(key, value);
            }
        }
        family
    }
}

/// Stores `value` in `slot` when there is one; whether there was.
fn fill<T>(slot: &mut Option<T>, value: Option<T>) -> bool {
    let parsed = value.is_some();
    if parsed {
        *slot = value;
    }
    parsed
}

/// HBase's name of the table setting that holds its region replication.
pub(crate) const REGION_REPLICATION: &str = "REGION_REPLICATION";
/// The most replicas a region can have: replica ids are 0 to 65535.
pub(crate) const MAX_REGION_REPLICAS: u32 = 1 << 16;

/// A table: name, families, and settings. Split keys (pre-splitting) are given to
/// [`Admin::create_table`](crate::Admin::create_table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    pub(crate) name: String,
    pub(crate) families: Vec<ColumnFamily>,
    pub(crate) region_replication: Option<u32>,
    /// Other table settings by HBase's name (`MAX_FILESIZE`, `READONLY`, ...).
    pub(crate) settings: BTreeMap<String, String>,
}

impl TableDescriptor {
    /// A table named `name` (`table` or `namespace:table`).
    pub fn new(name: impl Into<String>) -> TableDescriptor {
        TableDescriptor { name: name.into(), families: Vec::new(), region_replication: None, settings: BTreeMap::new() }
    }

    /// Adds a column family (keep them few); one of the same name is replaced.
    pub fn family(mut self, family: ColumnFamily) -> TableDescriptor {
        self.families.retain(|f| f.name != family.name);
        self.families.push(family);
        self
    }

    /// Removes the family named `name` (for [`Admin::modify_table`](crate::Admin::modify_table)).
    pub fn without_family(mut self, name: &[u8]) -> TableDescriptor {
        self.families.retain(|f| f.name.as_ref() != name);
        self
    }

    /// Serves each region from `replicas` region servers: the primary, which takes
    /// writes, and `replicas - 1` read-only secondaries that answer reads with
    /// [`Consistency::Timeline`](crate::Consistency::Timeline) when the primary is slow
    /// or down. 1 to 65536; [`Admin::create_table`](crate::Admin::create_table) refuses
    /// others. Default: HBase's (1).
    pub fn region_replication(mut self, replicas: u32) -> TableDescriptor {
        self.region_replication = Some(replicas);
        self
    }

    /// MAX_FILESIZE: the size at which a region splits.
    pub fn max_file_size(self, bytes: u64) -> TableDescriptor {
        self.setting("MAX_FILESIZE", bytes.to_string())
    }

    /// READONLY: whether the table refuses writes.
    pub fn read_only(self, read_only: bool) -> TableDescriptor {
        self.setting("READONLY", read_only.to_string())
    }

    /// Any other table setting by HBase's name (`MEMSTORE_FLUSHSIZE`, `DURABILITY`,
    /// ...). A region replication given with [`TableDescriptor::region_replication`]
    /// wins over a `REGION_REPLICATION` given here.
    pub fn setting(mut self, key: impl Into<String>, value: impl Into<String>) -> TableDescriptor {
        self.settings.insert(key.into(), value.into());
        self
    }

    /// The region replication set, or read back by
    /// [`Admin::describe_table`](crate::Admin::describe_table); `None` when it is
    /// HBase's default (1).
    pub fn get_region_replication(&self) -> Option<u32> {
        self.region_replication
    }

    /// A table setting by HBase's name, as set or described.
    pub fn get_setting(&self, key: &str) -> Option<&str> {
        self.settings.get(key).map(String::as_str)
    }

    /// The other table settings, as set or described.
    pub fn settings(&self) -> &BTreeMap<String, String> {
        &self.settings
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The families.
    pub fn families(&self) -> &[ColumnFamily] {
        &self.families
    }

    /// The family named `name`, if the table has it.
    pub fn get_family(&self, name: &[u8]) -> Option<&ColumnFamily> {
        self.families.iter().find(|f| f.name.as_ref() == name)
    }

    /// Checks the table before it is sent: its name, at least one family, each
    /// family, the region replication and the settings' names.
    pub(crate) fn check(&self) -> Result<()> {
        validate::table_name(&self.name)?;
        if self.families.is_empty() {
            return Err(InvalidInput::Option("a table needs at least one column family".into()).into());
        }
        for family in &self.families {
            family.check()?;
        }
        if let Some(n) = self.region_replication {
            if !(1..=MAX_REGION_REPLICAS).contains(&n) {
                let why = format!("region replication {n}: use 1 to {MAX_REGION_REPLICAS}");
                return Err(InvalidInput::Option(why).into());
            }
        }
        check_settings(&self.settings, "table")
    }

    /// The table settings to send by HBase's name: the region replication, if set, and
    /// the others.
    pub(crate) fn hbase_settings(&self) -> BTreeMap<String, String> {
        let mut settings = self.settings.clone();
        if let Some(n) = self.region_replication {
            settings.insert(REGION_REPLICATION.to_owned(), n.to_string());
        }
        settings
    }

    /// A table from its name, families and HBase's named settings (the region
    /// replication parsed; a value that does not parse reads as unset).
    pub(crate) fn from_hbase(
        name: String,
        families: Vec<ColumnFamily>,
        mut settings: BTreeMap<String, String>,
    ) -> TableDescriptor {
        let region_replication = settings.remove(REGION_REPLICATION).and_then(|v| v.trim().parse::<u32>().ok());
        TableDescriptor { name, families, region_replication, settings }
    }
}

/// Refuses setting names that are empty or hold control characters.
fn check_settings(settings: &BTreeMap<String, String>, what: &str) -> Result<()> {
    for key in settings.keys() {
        if key.trim().is_empty() || key.chars().any(char::is_control) {
            return Err(InvalidInput::Option(format!("{what} setting {key:?}: not a setting's name")).into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_settings_go_by_hbase_names_and_come_back() {
        let family = ColumnFamily::new("d")
            .max_versions(3)
            .ttl_seconds(60)
            .bloom_filter(BloomFilter::RowCol)
            .compression(Compression::Gz)
            .block_encoding(BlockEncoding::FastDiff)
            .block_cache(false)
            .dfs_replication(2)
            .setting("IS_MOB", "true");
        let mut sent: Vec<(String, String)> =
            family.hbase_settings().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        sent.extend(family.settings().clone());
        let back = ColumnFamily::from_hbase_settings(family.name().clone(), sent);
        assert_eq!(back, family);
        let odd = ColumnFamily::from_hbase_settings(Bytes::from("d"), [("VERSIONS".into(), "many".into())]);
        assert_eq!(odd.get_max_versions(), None);
        assert_eq!(odd.settings().get("VERSIONS").map(String::as_str), Some("many"));
    }

    #[test]
    fn tables_are_checked_before_sending() {
        let ok = TableDescriptor::new("t").family(ColumnFamily::new("d"));
        assert!(ok.check().is_ok());
        assert!(TableDescriptor::new("t").check().is_err(), "no family");
        assert!(ok.clone().region_replication(0).check().is_err());
        assert!(ok.clone().region_replication(MAX_REGION_REPLICAS + 1).check().is_err());
        let both = ok.clone().setting("REGION_REPLICATION", "5").region_replication(2);
        assert_eq!(
            both.hbase_settings().get(REGION_REPLICATION).map(String::as_str),
            Some("2"),
            "the typed value wins"
        );
        assert!(ok.clone().setting("", "x").check().is_err());
        let zero = TableDescriptor::new("t").family(ColumnFamily::new("d").max_versions(0));
        assert!(zero.check().is_err());
        let described = TableDescriptor::from_hbase(
            "t".into(),
            Vec::new(),
            BTreeMap::from([("REGION_REPLICATION".into(), "2".into()), ("READONLY".into(), "true".into())]),
        );
        assert_eq!(described.get_region_replication(), Some(2));
        assert_eq!(described.get_setting("READONLY"), Some("true"));
    }
}
