//! Table and column-family descriptors ([`TableSchema`], [`FamilyDescriptor`]) as the
//! master's `TableSchema` and `ColumnFamilySchema` carry them: settings are HBase's
//! named attributes (`VERSIONS`, `TTL`, `BLOOMFILTER`, ...), with typed setters and
//! getters for the common ones, mirroring `basalt::ColumnFamily` and
//! `basalt::TableDescriptor`.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::names::{table_string, TableName};
use crate::error::RpcError;
use crate::pb;

/// The most column families accepted in one table (a sanity bound, far above practice).
const MAX_FAMILIES: usize = 1000;

macro_rules! named_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $variant),*
        }

        impl $name {
            /// HBase's name of the setting.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The setting HBase names `text` (case-insensitive), if this crate knows it.
            pub fn parse(text: &str) -> Option<$name> {
                $(if text.eq_ignore_ascii_case($text) { return Some($name::$variant); })*
                None
            }
        }
    };
}

named_enum! {
    /// Bloom filter of a column family's files (`BLOOMFILTER`).
    BloomFilter {
        /// None.
        None = "NONE",
        /// On row keys (HBase's default).
        Row = "ROW",
        /// On row + column.
        RowCol = "ROWCOL",
        /// On a fixed-length row prefix (needs `RowPrefixBloomFilter.prefix_length`).
        RowPrefixFixedLength = "ROWPREFIX_FIXED_LENGTH",
    }
}

named_enum! {
    /// Compression of a column family's files (`COMPRESSION`).
    Compression {
        /// None (default).
        None = "NONE",
        /// Gzip.
        Gz = "GZ",
        /// Snappy.
        Snappy = "SNAPPY",
        /// LZ4.
        Lz4 = "LZ4",
        /// Zstandard.
        Zstd = "ZSTD",
        /// LZO.
        Lzo = "LZO",
        /// Bzip2.
        Bzip2 = "BZIP2",
        /// LZMA.
        Lzma = "LZMA",
    }
}

named_enum! {
    /// In-block key encoding of a column family (`DATA_BLOCK_ENCODING`).
    BlockEncoding {
        /// None (default).
        None = "NONE",
        /// Prefix.
        Prefix = "PREFIX",
        /// Diff.
        Diff = "DIFF",
        /// Fast diff.
        FastDiff = "FAST_DIFF",
        /// Row index.
        RowIndexV1 = "ROW_INDEX_V1",
    }
}

/// A column family's name and settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyDescriptor {
    name: Bytes,
    attributes: BTreeMap<Bytes, Bytes>,
    configuration: BTreeMap<String, String>,
}

impl FamilyDescriptor {
    /// A family with HBase's default settings.
    pub fn new(name: impl Into<Bytes>) -> FamilyDescriptor {
        FamilyDescriptor { name: name.into(), attributes: BTreeMap::new(), configuration: BTreeMap::new() }
    }

    /// Sets attribute `key` (HBase's name, such as `VERSIONS`) to `value`.
    pub fn attribute(mut self, key: &str, value: impl Into<String>) -> Self {
        self.attributes.insert(Bytes::from(key.to_owned()), Bytes::from(value.into()));
        self
    }

    /// Sets configuration `key` (a per-family override of a server setting).
    pub fn configuration(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.configuration.insert(key.into(), value.into());
        self
    }

    /// Versions kept per cell (`VERSIONS`).
    pub fn max_versions(self, n: u32) -> Self {
        self.attribute("VERSIONS", n.to_string())
    }

    /// Versions kept even past the TTL (`MIN_VERSIONS`).
    pub fn min_versions(self, n: u32) -> Self {
        self.attribute("MIN_VERSIONS", n.to_string())
    }

    /// Time to live of cells, in seconds (`TTL`).
    pub fn ttl_seconds(self, seconds: u32) -> Self {
        self.attribute("TTL", seconds.to_string())
    }

    /// Bloom filter (`BLOOMFILTER`).
    pub fn bloom_filter(self, bloom: BloomFilter) -> Self {
        self.attribute("BLOOMFILTER", bloom.as_str())
    }

    /// Compression (`COMPRESSION`).
    pub fn compression(self, compression: Compression) -> Self {
        self.attribute("COMPRESSION", compression.as_str())
    }

    /// Block encoding (`DATA_BLOCK_ENCODING`).
    pub fn block_encoding(self, encoding: BlockEncoding) -> Self {
        self.attribute("DATA_BLOCK_ENCODING", encoding.as_str())
    }

    /// Block size in bytes (`BLOCKSIZE`).
    pub fn block_size(self, bytes: u32) -> Self {
        self.attribute("BLOCKSIZE", bytes.to_string())
    }

    /// Whether the family's blocks get priority in the block cache (`IN_MEMORY`).
    pub fn in_memory(self, in_memory: bool) -> Self {
        self.attribute("IN_MEMORY", in_memory.to_string())
    }

    /// Whether reads cache the family's blocks (`BLOCKCACHE`).
    pub fn block_cache(self, enabled: bool) -> Self {
        self.attribute("BLOCKCACHE", enabled.to_string())
    }

    /// Replication scope (`REPLICATION_SCOPE`: 0 local, 1 global).
    pub fn replication_scope(self, scope: u32) -> Self {
        self.attribute("REPLICATION_SCOPE", scope.to_string())
    }

    /// HDFS replicas of the family's files (`DFS_REPLICATION`).
    pub fn dfs_replication(self, replicas: u16) -> Self {
        self.attribute("DFS_REPLICATION", replicas.to_string())
    }

    /// The family's name.
    pub fn name(&self) -> &Bytes {
        &self.name
    }

    /// Attribute `key` as text, if set and UTF-8.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attributes.get(key.as_bytes()).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// Every attribute, as sent or as the master described it.
    pub fn attributes(&self) -> &BTreeMap<Bytes, Bytes> {
        &self.attributes
    }

    /// The per-family configuration.
    pub fn get_configuration(&self) -> &BTreeMap<String, String> {
        &self.configuration
    }

    fn number(&self, key: &str) -> Option<i64> {
        self.get(key)?.trim().parse().ok()
    }

    /// `VERSIONS`, if set.
    pub fn get_max_versions(&self) -> Option<i64> {
        self.number("VERSIONS")
    }

    /// `MIN_VERSIONS`, if set.
    pub fn get_min_versions(&self) -> Option<i64> {
        self.number("MIN_VERSIONS")
    }

    /// `TTL` in seconds, if set (HBase's "forever" is `2147483647`).
    pub fn get_ttl_seconds(&self) -> Option<i64> {
        self.number("TTL")
    }

    /// `BLOCKSIZE`, if set.
    pub fn get_block_size(&self) -> Option<i64> {
        self.number("BLOCKSIZE")
    }

    /// `BLOOMFILTER`, if set to a known value.
    pub fn get_bloom_filter(&self) -> Option<BloomFilter> {
        BloomFilter::parse(self.get("BLOOMFILTER")?)
    }

    /// `COMPRESSION`, if set to a known value.
    pub fn get_compression(&self) -> Option<Compression> {
        Compression::parse(self.get("COMPRESSION")?)
    }

    /// `DATA_BLOCK_ENCODING`, if set to a known value.
    pub fn get_block_encoding(&self) -> Option<BlockEncoding> {
        BlockEncoding::parse(self.get("DATA_BLOCK_ENCODING")?)
    }

    /// `IN_MEMORY`, if set.
    pub fn get_in_memory(&self) -> Option<bool> {
        self.get("IN_MEMORY")?.trim().parse().ok()
    }

    /// `REPLICATION_SCOPE`, if set.
    pub fn get_replication_scope(&self) -> Option<i64> {
        self.number("REPLICATION_SCOPE")
    }

    /// Checks the name as HBase's `ColumnFamilyDescriptorBuilder` does.
    pub(crate) fn validate(&self) -> Result<(), RpcError> {
        validate_family_name(&self.name)?;
        if let Some(versions) = self.get("VERSIONS") {
            match versions.trim().parse::<i64>() {
                Ok(n) if n >= 1 => {}
                _ => return Err(RpcError::InvalidArgument(format!("VERSIONS {versions:?}: at least 1"))),
            }
        }
        Ok(())
    }

    pub(crate) fn to_proto(&self) -> pb::ColumnFamilySchema {
        pb::ColumnFamilySchema {
            name: self.name.clone(),
            attributes: pairs(&self.attributes),
            configuration: name_strings(&self.configuration),
        }
    }

    pub(crate) fn from_proto(proto: pb::ColumnFamilySchema) -> FamilyDescriptor {
        FamilyDescriptor {
            name: proto.name,
            attributes: proto.attributes.into_iter().map(|p| (p.first, p.second)).collect(),
            configuration: proto.configuration.into_iter().map(|p| (p.name, p.value)).collect(),
        }
    }
}

/// Checks a family name: not empty, at most 255 bytes (HBase stores it as a byte length
/// in every cell), printable, no ':' and not `.` or `..` (it is a directory name).
pub(crate) fn validate_family_name(name: &[u8]) -> Result<(), RpcError> {
    let bad = |why: &str| RpcError::InvalidArgument(format!("invalid column family {name:?}: {why}"));
    if name.is_empty() {
        return Err(bad("empty"));
    }
    if name.len() > 255 {
        return Err(bad("longer than 255 bytes"));
    }
    if name[0] == b'.' {
        return Err(bad("starts with '.'"));
    }
    if name.iter().any(|&b| b == b':' || b == b'\\' || b == b'/' || b.is_ascii_control()) {
        return Err(bad("':', '/', '\\' and control characters are not allowed"));
    }
    Ok(())
}

/// A table's name, column families and settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSchema {
    name: String,
    families: Vec<FamilyDescriptor>,
    attributes: BTreeMap<Bytes, Bytes>,
    configuration: BTreeMap<String, String>,
}

impl TableSchema {
    /// A table named `name` (`namespace:qualifier` or `qualifier`), without families yet.
    pub fn new(name: impl Into<String>) -> TableSchema {
        TableSchema {
            name: name.into(),
            families: Vec::new(),
            attributes: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }

    /// Adds (or replaces, by name) a column family.
    pub fn family(mut self, family: FamilyDescriptor) -> Self {
        self.families.retain(|f| f.name != family.name);
        self.families.push(family);
        self
    }

    /// Removes the family named `name`.
    pub fn without_family(mut self, name: &[u8]) -> Self {
        self.families.retain(|f| f.name.as_ref() != name);
        self
    }

    /// Sets table attribute `key` (HBase's name, such as `MAX_FILESIZE`).
    pub fn attribute(mut self, key: &str, value: impl Into<String>) -> Self {
        self.attributes.insert(Bytes::from(key.to_owned()), Bytes::from(value.into()));
        self
    }

    /// Sets configuration `key` for this table.
    pub fn configuration(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.configuration.insert(key.into(), value.into());
        self
    }

    /// Replicas of each region (`REGION_REPLICATION`; 1 means none besides the primary).
    pub fn region_replication(self, replicas: u32) -> Self {
        self.attribute("REGION_REPLICATION", replicas.to_string())
    }

    /// The size at which a region splits (`MAX_FILESIZE`).
    pub fn max_file_size(self, bytes: u64) -> Self {
        self.attribute("MAX_FILESIZE", bytes.to_string())
    }

    /// Whether the table refuses writes (`READONLY`).
    pub fn read_only(self, read_only: bool) -> Self {
        self.attribute("READONLY", read_only.to_string())
    }

    /// The table's name, as HBase spells it (`t` in the default namespace, else `ns:t`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The column families.
    pub fn families(&self) -> &[FamilyDescriptor] {
        &self.families
    }

    /// The family named `name`.
    pub fn get_family(&self, name: &[u8]) -> Option<&FamilyDescriptor> {
        self.families.iter().find(|f| f.name.as_ref() == name)
    }

    /// Attribute `key` as text, if set and UTF-8.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attributes.get(key.as_bytes()).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// Every table attribute.
    pub fn attributes(&self) -> &BTreeMap<Bytes, Bytes> {
        &self.attributes
    }

    /// The table's configuration.
    pub fn get_configuration(&self) -> &BTreeMap<String, String> {
        &self.configuration
    }

    /// `REGION_REPLICATION`, if set.
    pub fn get_region_replication(&self) -> Option<u32> {
        self.get("REGION_REPLICATION")?.trim().parse().ok()
    }

    /// Checks the name and families; the proto to send.
    pub(crate) fn to_proto(&self) -> Result<pb::TableSchema, RpcError> {
        let name = TableName::parse(&self.name)?;
        if self.families.is_empty() {
            return Err(RpcError::InvalidArgument(format!("table {}: at least one column family", self.name)));
        }
        if self.families.len() > MAX_FAMILIES {
            return Err(RpcError::InvalidArgument(format!("table {}: more than {MAX_FAMILIES} families", self.name)));
        }
        for family in &self.families {
            family.validate()?;
        }
        Ok(pb::TableSchema {
            table_name: Some(name.to_proto()),
            attributes: pairs(&self.attributes),
            column_families: self.families.iter().map(FamilyDescriptor::to_proto).collect(),
            configuration: name_strings(&self.configuration),
        })
    }

    pub(crate) fn from_proto(proto: pb::TableSchema) -> TableSchema {
        TableSchema {
            name: proto.table_name.as_ref().map(table_string).unwrap_or_default(),
            families: proto.column_families.into_iter().map(FamilyDescriptor::from_proto).collect(),
            attributes: proto.attributes.into_iter().map(|p| (p.first, p.second)).collect(),
            configuration: proto.configuration.into_iter().map(|p| (p.name, p.value)).collect(),
        }
    }
}

fn pairs(map: &BTreeMap<Bytes, Bytes>) -> Vec<pb::BytesBytesPair> {
    map.iter().map(|(first, second)| pb::BytesBytesPair { first: first.clone(), second: second.clone() }).collect()
}

pub(crate) fn name_strings(map: &BTreeMap<String, String>) -> Vec<pb::NameStringPair> {
    map.iter().map(|(name, value)| pb::NameStringPair { name: name.clone(), value: value.clone() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_the_proto() {
        let schema = TableSchema::new("ns:t")
            .region_replication(2)
            .configuration("hbase.hregion.memstore.flush.size", "1048576")
            .family(
                FamilyDescriptor::new("d")
                    .max_versions(3)
                    .ttl_seconds(60)
                    .bloom_filter(BloomFilter::RowCol)
                    .compression(Compression::Gz)
                    .block_encoding(BlockEncoding::FastDiff)
                    .in_memory(true),
            )
            .family(FamilyDescriptor::new("e"));
        let back = TableSchema::from_proto(schema.to_proto().unwrap());
        assert_eq!(back, schema);
        let d = back.get_family(b"d").unwrap();
        assert_eq!(d.get_max_versions(), Some(3));
        assert_eq!(d.get_ttl_seconds(), Some(60));
        assert_eq!(d.get_bloom_filter(), Some(BloomFilter::RowCol));
        assert_eq!(d.get_compression(), Some(Compression::Gz));
        assert_eq!(d.get_block_encoding(), Some(BlockEncoding::FastDiff));
        assert_eq!(d.get_in_memory(), Some(true));
        assert_eq!(back.get_region_replication(), Some(2));
        assert_eq!(back.families().len(), 2);
    }

    #[test]
    fn bad_schemas_are_refused_before_sending() {
        assert!(TableSchema::new("t").to_proto().is_err(), "no family");
        assert!(TableSchema::new("bad name").family(FamilyDescriptor::new("d")).to_proto().is_err());
        for bad in [&b""[..], b"a:b", b".x", b"a/b", b"a\nb"] {
            let schema = TableSchema::new("t").family(FamilyDescriptor::new(Bytes::copy_from_slice(bad)));
            assert!(schema.to_proto().is_err(), "family {bad:?} accepted");
        }
        let zero = TableSchema::new("t").family(FamilyDescriptor::new("d").max_versions(0));
        assert!(zero.to_proto().is_err());
        assert_eq!(BloomFilter::parse("rowcol"), Some(BloomFilter::RowCol));
        assert_eq!(Compression::parse("nope"), None);
    }
}
