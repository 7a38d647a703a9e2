//! Administration: namespaces, tables (with column-family settings and split keys),
//! column families.

use std::collections::BTreeMap;

use basalt_thrift::hbase::{
    TBloomFilterType, TColumnFamilyDescriptor, TCompressionAlgorithm, TDataBlockEncoding, TNamespaceDescriptor,
    TTableDescriptor, TTableName,
};
use bytes::Bytes;

use crate::attempt::Idempotence;
use crate::client::Client;
use crate::error::{InvalidInput, Result};
use crate::transport::thrift::ThriftTransport;
use crate::transport::Operation;
use crate::validate;

/// Bloom filter kind of a column family .
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BloomFilter {
    /// No bloom filter.
    None,
    /// On row keys (HBase's default): helps gets of whole rows.
    Row,
    /// On row + column: helps gets of single columns.
    RowCol,
}

/// Compression of a column family's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// None (default).
    None,
    /// Gzip.
    Gz,
    /// Snappy (needs native support on the servers).
    Snappy,
    /// LZ4 (needs native support on the servers).
    Lz4,
    /// Zstandard (needs native support on the servers).
    Zstd,
}

/// In-block key encoding of a column family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlockEncoding {
    /// None (default).
    None,
    /// Prefix.
    Prefix,
    /// Diff.
    Diff,
    /// Fast diff: a good default for long, similar keys.
    FastDiff,
    /// Row index.
    RowIndexV1,
}

/// A column family and its settings. Unset settings keep HBase's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFamily {
    name: Bytes,
    max_versions: Option<i32>,
    min_versions: Option<i32>,
    ttl_seconds: Option<i32>,
    bloom: Option<BloomFilter>,
    compression: Option<Compression>,
    encoding: Option<BlockEncoding>,
    block_size: Option<i32>,
    in_memory: Option<bool>,
    block_cache: Option<bool>,
    replication_scope: Option<i32>,
    dfs_replication: Option<i16>,
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

    /// The family's name.
    pub fn name(&self) -> &Bytes {
        &self.name
    }

    fn to_thrift(&self) -> Result<TColumnFamilyDescriptor> {
        validate::family(&self.name)?;
        if self.max_versions == Some(0) {
            return Err(InvalidInput::Option("a family keeps at least 1 version".into()).into());
        }
        let bloom = self.bloom.map(|b| match b {
            BloomFilter::None => TBloomFilterType::NONE,
            BloomFilter::Row => TBloomFilterType::ROW,
            BloomFilter::RowCol => TBloomFilterType::ROWCOL,
        });
        let compression = self.compression.map(|c| match c {
            Compression::None => TCompressionAlgorithm::NONE,
            Compression::Gz => TCompressionAlgorithm::GZ,
            Compression::Snappy => TCompressionAlgorithm::SNAPPY,
            Compression::Lz4 => TCompressionAlgorithm::LZ4,
            Compression::Zstd => TCompressionAlgorithm::ZSTD,
        });
        let encoding = self.encoding.map(|e| match e {
            BlockEncoding::None => TDataBlockEncoding::NONE,
            BlockEncoding::Prefix => TDataBlockEncoding::PREFIX,
            BlockEncoding::Diff => TDataBlockEncoding::DIFF,
            BlockEncoding::FastDiff => TDataBlockEncoding::FAST_DIFF,
            BlockEncoding::RowIndexV1 => TDataBlockEncoding::ROW_INDEX_V1,
        });
        Ok(TColumnFamilyDescriptor::new(
            self.name.to_vec(),
            None,
            None,
            self.block_size,
            bloom,
            compression,
            self.dfs_replication,
            encoding,
            None,
            self.max_versions,
            self.min_versions,
            self.replication_scope,
            self.ttl_seconds,
            self.block_cache,
            None,
            None,
            None,
            None,
            None,
            self.in_memory,
        ))
    }

    fn from_thrift(d: TColumnFamilyDescriptor) -> ColumnFamily {
        ColumnFamily {
            name: Bytes::from(d.name),
            max_versions: d.max_versions,
            min_versions: d.min_versions,
            ttl_seconds: d.time_to_live,
            bloom: d.bloomn_filter_type.and_then(|b| match b {
                TBloomFilterType::NONE => Some(BloomFilter::None),
                TBloomFilterType::ROW => Some(BloomFilter::Row),
                TBloomFilterType::ROWCOL => Some(BloomFilter::RowCol),
                _ => None,
            }),
            compression: d.compression_type.and_then(|c| match c {
                TCompressionAlgorithm::NONE => Some(Compression::None),
                TCompressionAlgorithm::GZ => Some(Compression::Gz),
                TCompressionAlgorithm::SNAPPY => Some(Compression::Snappy),
                TCompressionAlgorithm::LZ4 => Some(Compression::Lz4),
                TCompressionAlgorithm::ZSTD => Some(Compression::Zstd),
                _ => None,
            }),
            encoding: d.data_block_encoding.and_then(|e| match e {
                TDataBlockEncoding::NONE => Some(BlockEncoding::None),
                TDataBlockEncoding::PREFIX => Some(BlockEncoding::Prefix),
                TDataBlockEncoding::DIFF => Some(BlockEncoding::Diff),
                TDataBlockEncoding::FAST_DIFF => Some(BlockEncoding::FastDiff),
                TDataBlockEncoding::ROW_INDEX_V1 => Some(BlockEncoding::RowIndexV1),
                _ => None,
            }),
            block_size: d.block_size,
            in_memory: d.in_memory,
            block_cache: d.block_cache_enabled,
            replication_scope: d.scope,
            dfs_replication: d.dfs_replication,
        }
    }

    /// VERSIONS as set or described.
    pub fn get_max_versions(&self) -> Option<i32> {
        self.max_versions
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
    /// REPLICATION_SCOPE as set or described.
    pub fn get_replication_scope(&self) -> Option<i32> {
        self.replication_scope
    }
}

/// The table setting that holds its region replication (HBase's `REGION_REPLICATION`).
const REGION_REPLICATION: &[u8] = b"REGION_REPLICATION";
/// The most replicas a region can have: replica ids are 0 to 65535.
const MAX_REGION_REPLICAS: u32 = 1 << 16;

/// A table to create: name, families, and optional split keys (pre-splitting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    name: String,
    families: Vec<ColumnFamily>,
    region_replication: Option<u32>,
}

impl TableDescriptor {
    /// A table named `name` (`table` or `namespace:table`).
    pub fn new(name: impl Into<String>) -> TableDescriptor {
        TableDescriptor { name: name.into(), families: Vec::new(), region_replication: None }
    }

    /// Adds a column family (keep them few).
    pub fn family(mut self, family: ColumnFamily) -> TableDescriptor {
        self.families.push(family);
        self
    }

    /// Serves each region from `replicas` region servers: the primary, which takes
    /// writes, and `replicas - 1` read-only secondaries that answer reads with
    /// [`Consistency::Timeline`](crate::Consistency::Timeline) when the primary is slow
    /// or down. 1 to 65536; [`Admin::create_table`] refuses others. Default: HBase's (1).
    pub fn region_replication(mut self, replicas: u32) -> TableDescriptor {
        self.region_replication = Some(replicas);
        self
    }

    /// The region replication set, or read back by [`Admin::describe_table`]; `None`
    /// when it is HBase's default (1).
    pub fn get_region_replication(&self) -> Option<u32> {
        self.region_replication
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The families.
    pub fn families(&self) -> &[ColumnFamily] {
        &self.families
    }
}

fn table_name(name: &str) -> Result<TTableName> {
    validate::table_name(name)?;
    Ok(match name.split_once(':') {
        Some((ns, q)) => TTableName::new(ns.as_bytes().to_vec(), q.as_bytes().to_vec()),
        None => TTableName::new(None, name.as_bytes().to_vec()),
    })
}

fn name_of(t: &TTableName) -> String {
    let q = String::from_utf8_lossy(&t.qualifier);
    match &t.ns {
        Some(ns) if !ns.is_empty() && ns != b"default" => format!("{}:{q}", String::from_utf8_lossy(ns)),
        _ => q.into_owned(),
    }
}

/// Administrative operations, from [`Client::admin`].
#[derive(Debug, Clone)]
pub struct Admin {
    client: Client,
}

impl Client {
    /// Namespace, table and column-family administration.
    pub fn admin(&self) -> Admin {
        Admin { client: self.clone() }
    }
}

macro_rules! admin_call {
    ($self:ident, $op:literal, $table:expr, $idem:expr, |$conn:ident| $call:expr) => {{
        let op = Operation::Admin($op);
        let thrift = $self.thrift()?;
        let table: Option<&str> = $table;
        $self.client.attempts().run(op, table, $idem, |_| thrift.raw(op, table, |$conn| Box::pin($call))).await
    }};
}

impl Admin {
    /// The Thrift2 transport, which alone carries administrative calls for now.
    fn thrift(&self) -> Result<&ThriftTransport> {
        self.client.transport().thrift().ok_or_else(|| {
            InvalidInput::Option("administrative calls need the Thrift2 gateway transport".into()).into()
        })
    }

    /// Creates a namespace, with optional configuration.
    pub async fn create_namespace(&self, name: &str, config: BTreeMap<String, String>) -> Result<()> {
        validate::namespace_name(name)?;
        let desc = TNamespaceDescriptor::new(name.to_owned(), if config.is_empty() { None } else { Some(config) });
        admin_call!(self, "create_namespace", None, Idempotence::NotIdempotent, |conn| conn
            .create_namespace(desc.clone()))
    }

    /// A namespace's configuration.
    pub async fn describe_namespace(&self, name: &str) -> Result<BTreeMap<String, String>> {
        validate::namespace_name(name)?;
        let desc = admin_call!(self, "describe_namespace", None, Idempotence::Idempotent, |conn| conn
            .get_namespace_descriptor(name.to_owned()))?;
        Ok(desc.configuration.unwrap_or_default())
    }

    /// Every namespace's name.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        admin_call!(self, "list_namespaces", None, Idempotence::Idempotent, |conn| conn.list_namespaces())
    }

    /// Deletes an empty namespace.
    pub async fn delete_namespace(&self, name: &str) -> Result<()> {
        validate::namespace_name(name)?;
        admin_call!(self, "delete_namespace", None, Idempotence::NotIdempotent, |conn| conn
            .delete_namespace(name.to_owned()))
    }

    /// Creates a table, pre-split at `split_keys` (sorted, distinct, non-empty; an
    /// empty list makes one region).
    pub async fn create_table(&self, desc: &TableDescriptor, split_keys: &[Bytes]) -> Result<()> {
        let name = table_name(&desc.name)?;
        if desc.families.is_empty() {
            return Err(InvalidInput::Option("a table needs at least one column family".into()).into());
        }
        let families = desc.families.iter().map(ColumnFamily::to_thrift).collect::<Result<Vec<_>>>()?;
        for pair in split_keys.windows(2) {
            if pair[0] >= pair[1] {
                return Err(InvalidInput::Option("split keys must be sorted and distinct".into()).into());
            }
        }
        for key in split_keys {
            validate::row_key(key)?;
        }
        let attributes = match desc.region_replication {
            None => None,
            Some(n @ 1..=MAX_REGION_REPLICAS) => {
                Some(BTreeMap::from([(REGION_REPLICATION.to_vec(), n.to_string().into_bytes())]))
            }
            Some(n) => {
                let why = format!("region replication {n}: use 1 to {MAX_REGION_REPLICAS}");
                return Err(InvalidInput::Option(why).into());
            }
        };
        if attributes.is_some() && self.thrift()?.framing() == basalt_thrift::Framing::Framed {
            // The gateway reads each setting's key and value as the whole request frame
            // (it takes the frame's backing array), so the table would get garbage
            // settings and no replication.
            return Err(InvalidInput::Option(
                "region replication through a framed gateway: HBase's Thrift2 gateway misreads table settings \
                 sent over the framed transport; create the table through a gateway without -f, or with HBase's shell"
                    .into(),
            )
            .into());
        }
        let tdesc = TTableDescriptor::new(name, families, attributes, None);
        let splits: Vec<Vec<u8>> = split_keys.iter().map(|k| k.to_vec()).collect();
        admin_call!(self, "create_table", Some(&desc.name), Idempotence::NotIdempotent, |conn| conn
            .create_table(tdesc.clone(), splits.clone()))
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, name: &str) -> Result<bool> {
        let t = table_name(name)?;
        admin_call!(self, "table_exists", Some(name), Idempotence::Idempotent, |conn| conn.table_exists(t.clone()))
    }

    /// Disables a table (needed before delete and truncate).
    pub async fn disable_table(&self, name: &str) -> Result<()> {
        let t = table_name(name)?;
        admin_call!(self, "disable_table", Some(name), Idempotence::NotIdempotent, |conn| conn.disable_table(t.clone()))
    }

    /// Enables a disabled table.
    pub async fn enable_table(&self, name: &str) -> Result<()> {
        let t = table_name(name)?;
        admin_call!(self, "enable_table", Some(name), Idempotence::NotIdempotent, |conn| conn.enable_table(t.clone()))
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, name: &str) -> Result<bool> {
        let t = table_name(name)?;
        admin_call!(self, "is_table_enabled", Some(name), Idempotence::Idempotent, |conn| conn
            .is_table_enabled(t.clone()))
    }

    /// Deletes a table and its data, disabling it first if needed.
    pub async fn delete_table(&self, name: &str) -> Result<()> {
        let t = table_name(name)?;
        if self.is_table_enabled(name).await? {
            self.disable_table(name).await?;
        }
        admin_call!(self, "delete_table", Some(name), Idempotence::NotIdempotent, |conn| conn.delete_table(t.clone()))
    }

    /// Removes every row, keeping the table's settings (and its regions if
    /// `preserve_splits`); disables it first if needed.
    pub async fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<()> {
        let t = table_name(name)?;
        if self.is_table_enabled(name).await? {
            self.disable_table(name).await?;
        }
        admin_call!(self, "truncate_table", Some(name), Idempotence::NotIdempotent, |conn| conn
            .truncate_table(t.clone(), preserve_splits))
    }

    /// Table names in a namespace.
    pub async fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        validate::namespace_name(namespace)?;
        let names = admin_call!(self, "list_tables", None, Idempotence::Idempotent, |conn| conn
            .get_table_names_by_namespace(namespace.to_owned()))?;
        Ok(names.iter().map(name_of).collect())
    }

    /// Table names matching a Java regular expression.
    pub async fn list_tables_matching(&self, regex: &str, include_system: bool) -> Result<Vec<String>> {
        let names = admin_call!(self, "list_tables", None, Idempotence::Idempotent, |conn| conn
            .get_table_names_by_pattern(regex.to_owned(), include_system))?;
        Ok(names.iter().map(name_of).collect())
    }

    /// A table's families and their settings.
    pub async fn describe_table(&self, name: &str) -> Result<TableDescriptor> {
        let t = table_name(name)?;
        let desc = admin_call!(self, "describe_table", Some(name), Idempotence::Idempotent, |conn| conn
            .get_table_descriptor(t.clone()))?;
        // A setting that does not parse (a hostile or odd reply) reads as unset.
        let region_replication = desc
            .attributes
            .as_ref()
            .and_then(|a| a.get(REGION_REPLICATION))
            .and_then(|v| std::str::from_utf8(v).ok()?.trim().parse::<u32>().ok());
        Ok(TableDescriptor {
            name: name_of(&desc.table_name),
            families: desc.columns.unwrap_or_default().into_iter().map(ColumnFamily::from_thrift).collect(),
            region_replication,
        })
    }

    /// Adds a column family to an existing table.
    pub async fn add_family(&self, table: &str, family: &ColumnFamily) -> Result<()> {
        let t = table_name(table)?;
        let f = family.to_thrift()?;
        admin_call!(self, "add_family", Some(table), Idempotence::NotIdempotent, |conn| conn
            .add_column_family(t.clone(), f.clone()))
    }

    /// Changes a column family's settings.
    pub async fn modify_family(&self, table: &str, family: &ColumnFamily) -> Result<()> {
        let t = table_name(table)?;
        let f = family.to_thrift()?;
        admin_call!(self, "modify_family", Some(table), Idempotence::NotIdempotent, |conn| conn
            .modify_column_family(t.clone(), f.clone()))
    }

    /// Removes a column family and its data.
    pub async fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        let t = table_name(table)?;
        validate::family(family)?;
        let f = family.to_vec();
        admin_call!(self, "delete_family", Some(table), Idempotence::NotIdempotent, |conn| conn
            .delete_column_family(t.clone(), f.clone()))
    }
}
