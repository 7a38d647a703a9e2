//! The administrative calls through the Thrift2 gateway: namespaces, tables and
//! families, encoded as Thrift2 structs. The gateway has no call for the rest of
//! [`AdminTransport`] (flushes, compactions, regions, the balancer, snapshots, status):
//! those keep the trait's refusal, which names native RPC as the way.

use std::collections::BTreeMap;

use basalt_thrift::hbase::{
    TBloomFilterType, TColumnFamilyDescriptor, TCompressionAlgorithm, TDataBlockEncoding, TNamespaceDescriptor,
    TTableDescriptor, TTableName,
};
use basalt_thrift::Framing;
use bytes::Bytes;

use super::ThriftTransport;
use super::{AttemptError, AttemptFuture, Operation};
use crate::error::{Error, InvalidInput};
use crate::schema::{BlockEncoding, BloomFilter, ColumnFamily, Compression, TableDescriptor};
use crate::transport::admin::{AdminTransport, TableListing};

fn table_name(name: &str) -> TTableName {
    match name.split_once(':') {
        Some((ns, q)) => TTableName::new(ns.as_bytes().to_vec(), q.as_bytes().to_vec()),
        None => TTableName::new(None, name.as_bytes().to_vec()),
    }
}

fn name_of(t: &TTableName) -> String {
    let q = String::from_utf8_lossy(&t.qualifier);
    match &t.ns {
        Some(ns) if !ns.is_empty() && ns != b"default" => format!("{}:{q}", String::from_utf8_lossy(ns)),
        _ => q.into_owned(),
    }
}

/// Settings as the gateway's byte maps (`None` when there are none).
fn attributes(settings: &BTreeMap<String, String>) -> Option<BTreeMap<Vec<u8>, Vec<u8>>> {
    let map: BTreeMap<Vec<u8>, Vec<u8>> =
        settings.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect();
    (!map.is_empty()).then_some(map)
}

/// Byte-map settings as text (a key or value that is not UTF-8 is read lossily).
fn settings_of(attributes: Option<BTreeMap<Vec<u8>, Vec<u8>>>) -> BTreeMap<String, String> {
    attributes
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), String::from_utf8_lossy(&v).into_owned()))
        .collect()
}

fn family_to_thrift(family: &ColumnFamily) -> TColumnFamilyDescriptor {
    let bloom = family.bloom.map(|b| match b {
        BloomFilter::None => TBloomFilterType::NONE,
        BloomFilter::Row => TBloomFilterType::ROW,
        BloomFilter::RowCol => TBloomFilterType::ROWCOL,
    });
    let compression = family.compression.map(|c| match c {
        Compression::None => TCompressionAlgorithm::NONE,
        Compression::Gz => TCompressionAlgorithm::GZ,
        Compression::Snappy => TCompressionAlgorithm::SNAPPY,
        Compression::Lz4 => TCompressionAlgorithm::LZ4,
        Compression::Zstd => TCompressionAlgorithm::ZSTD,
    });
    let encoding = family.encoding.map(|e| match e {
        BlockEncoding::None => TDataBlockEncoding::NONE,
        BlockEncoding::Prefix => TDataBlockEncoding::PREFIX,
        BlockEncoding::Diff => TDataBlockEncoding::DIFF,
        BlockEncoding::FastDiff => TDataBlockEncoding::FAST_DIFF,
        BlockEncoding::RowIndexV1 => TDataBlockEncoding::ROW_INDEX_V1,
    });
    TColumnFamilyDescriptor::new(
        family.name.to_vec(),
        attributes(&family.settings),
        None,
        family.block_size,
        bloom,
        compression,
        family.dfs_replication,
        encoding,
        None,
        family.max_versions,
        family.min_versions,
        family.replication_scope,
        family.ttl_seconds,
        family.block_cache,
        None,
        None,
        None,
        None,
        None,
        family.in_memory,
    )
}

/// A family as the gateway describes it. The gateway sends every setting twice: as a
/// typed field and among the named attributes; the named ones are read as the native
/// transport reads them (typed keys parsed, the others kept), then the typed fields
/// win, so both transports describe a family alike.
fn family_from_thrift(d: TColumnFamilyDescriptor) -> ColumnFamily {
    let mut family = ColumnFamily::from_hbase_settings(Bytes::from(d.name), settings_of(d.attributes));
    let bloom = d.bloomn_filter_type.and_then(|b| match b {
        TBloomFilterType::NONE => Some(BloomFilter::None),
        TBloomFilterType::ROW => Some(BloomFilter::Row),
        TBloomFilterType::ROWCOL => Some(BloomFilter::RowCol),
        // Kinds this crate has no name for (the gateway's enum is open).
        _unnamed => None,
    });
    let compression = d.compression_type.and_then(|c| match c {
        TCompressionAlgorithm::NONE => Some(Compression::None),
        TCompressionAlgorithm::GZ => Some(Compression::Gz),
        TCompressionAlgorithm::SNAPPY => Some(Compression::Snappy),
        TCompressionAlgorithm::LZ4 => Some(Compression::Lz4),
        TCompressionAlgorithm::ZSTD => Some(Compression::Zstd),
        _unnamed => None,
    });
    let encoding = d.data_block_encoding.and_then(|e| match e {
        TDataBlockEncoding::NONE => Some(BlockEncoding::None),
        TDataBlockEncoding::PREFIX => Some(BlockEncoding::Prefix),
        TDataBlockEncoding::DIFF => Some(BlockEncoding::Diff),
        TDataBlockEncoding::FAST_DIFF => Some(BlockEncoding::FastDiff),
        TDataBlockEncoding::ROW_INDEX_V1 => Some(BlockEncoding::RowIndexV1),
        _unnamed => None,
    });
    family.max_versions = d.max_versions.or(family.max_versions);
    family.min_versions = d.min_versions.or(family.min_versions);
    family.ttl_seconds = d.time_to_live.or(family.ttl_seconds);
    family.bloom = bloom.or(family.bloom);
    family.compression = compression.or(family.compression);
    family.encoding = encoding.or(family.encoding);
    family.block_size = d.block_size.or(family.block_size);
    family.in_memory = d.in_memory.or(family.in_memory);
    family.block_cache = d.block_cache_enabled.or(family.block_cache);
    family.replication_scope = d.scope.or(family.replication_scope);
    // 0 is HBase's "HDFS's default": the gateway reports it for a family that never set
    // one, the master leaves it out. Unset on both.
    family.dfs_replication = d.dfs_replication.filter(|&replicas| replicas > 0).or(family.dfs_replication);
    family
}

fn table_to_thrift(table: &TableDescriptor) -> TTableDescriptor {
    let families: Vec<TColumnFamilyDescriptor> = table.families.iter().map(family_to_thrift).collect();
    TTableDescriptor::new(table_name(&table.name), families, attributes(&table.hbase_settings()), None)
}

fn table_from_thrift(desc: TTableDescriptor) -> TableDescriptor {
    let families = desc.columns.unwrap_or_default().into_iter().map(family_from_thrift).collect();
    TableDescriptor::from_hbase(name_of(&desc.table_name), families, settings_of(desc.attributes))
}

/// Whether a table or family carries named settings (region replication included),
/// which a framed gateway misreads.
fn has_settings(table: Option<&TableDescriptor>, families: &[ColumnFamily]) -> bool {
    table.is_some_and(|t| !t.hbase_settings().is_empty()) || families.iter().any(|f| !f.settings.is_empty())
}

/// The refusal of settings through a framed gateway: it reads each setting's key and
/// value as the whole request frame (it takes the frame's backing array), so the table
/// would get garbage settings.
fn framed_settings(op: Operation) -> AttemptError {
    let why = "table and family settings (region replication included) through a framed gateway: HBase's Thrift2 \
               gateway misreads settings sent over the framed transport; use a gateway without -f, or HBase's \
               native RPC (`.native(..)`), which carries every setting";
    AttemptError::not_sent(op, Error::from(InvalidInput::Option(why.into())))
}

impl ThriftTransport {
    /// Refuses `table`'s or `families`' settings through a framed gateway.
    fn check_settings(
        &self,
        op: Operation,
        table: Option<&TableDescriptor>,
        families: &[ColumnFamily],
    ) -> Result<(), AttemptError> {
        if self.framing() == Framing::Framed && has_settings(table, families) {
            return Err(framed_settings(op));
        }
        Ok(())
    }
}

/// The operation of an admin call named `name`.
fn op(name: &'static str) -> Operation {
    Operation::Admin(name)
}

impl AdminTransport for ThriftTransport {
    fn create_namespace<'a>(&'a self, name: &'a str, config: &'a BTreeMap<String, String>) -> AttemptFuture<'a, ()> {
        let desc = TNamespaceDescriptor::new(name.to_owned(), (!config.is_empty()).then(|| config.clone()));
        self.raw(op("create_namespace"), None, move |c| Box::pin(c.create_namespace(desc)))
    }

    fn modify_namespace<'a>(&'a self, name: &'a str, config: &'a BTreeMap<String, String>) -> AttemptFuture<'a, ()> {
        let desc = TNamespaceDescriptor::new(name.to_owned(), Some(config.clone()));
        self.raw(op("modify_namespace"), None, move |c| Box::pin(c.modify_namespace(desc)))
    }

    fn describe_namespace<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, BTreeMap<String, String>> {
        Box::pin(async move {
            let desc =
                self.raw(op("describe_namespace"), None, |c| Box::pin(c.get_namespace_descriptor(name.to_owned())));
            Ok(desc.await?.configuration.unwrap_or_default())
        })
    }

    fn list_namespaces(&self) -> AttemptFuture<'_, Vec<String>> {
        self.raw(op("list_namespaces"), None, |c| Box::pin(c.list_namespaces()))
    }

    fn delete_namespace<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        self.raw(op("delete_namespace"), None, |c| Box::pin(c.delete_namespace(name.to_owned())))
    }

    fn create_table<'a>(&'a self, table: &'a TableDescriptor, split_keys: &'a [Bytes]) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = op("create_table");
            self.check_settings(op, Some(table), &table.families)?;
            let desc = table_to_thrift(table);
            let splits: Vec<Vec<u8>> = split_keys.iter().map(|k| k.to_vec()).collect();
            self.raw(op, Some(&table.name), |c| Box::pin(c.create_table(desc, splits))).await
        })
    }

    fn modify_table<'a>(&'a self, table: &'a TableDescriptor) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = op("modify_table");
            self.check_settings(op, Some(table), &table.families)?;
            let desc = table_to_thrift(table);
            self.raw(op, Some(&table.name), |c| Box::pin(c.modify_table(desc))).await
        })
    }

    fn describe_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, TableDescriptor> {
        Box::pin(async move {
            let t = table_name(name);
            let desc = self.raw(op("describe_table"), Some(name), |c| Box::pin(c.get_table_descriptor(t))).await?;
            Ok(table_from_thrift(desc))
        })
    }

    fn table_exists<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, bool> {
        let t = table_name(name);
        self.raw(op("table_exists"), Some(name), |c| Box::pin(c.table_exists(t)))
    }

    fn is_table_enabled<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, bool> {
        let t = table_name(name);
        self.raw(op("is_table_enabled"), Some(name), |c| Box::pin(c.is_table_enabled(t)))
    }

    fn enable_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        let t = table_name(name);
        self.raw(op("enable_table"), Some(name), |c| Box::pin(c.enable_table(t)))
    }

    fn disable_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        let t = table_name(name);
        self.raw(op("disable_table"), Some(name), |c| Box::pin(c.disable_table(t)))
    }

    fn delete_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        let t = table_name(name);
        self.raw(op("delete_table"), Some(name), |c| Box::pin(c.delete_table(t)))
    }

    fn truncate_table<'a>(&'a self, name: &'a str, preserve_splits: bool) -> AttemptFuture<'a, ()> {
        let t = table_name(name);
        self.raw(op("truncate_table"), Some(name), move |c| Box::pin(c.truncate_table(t, preserve_splits)))
    }

    fn list_tables<'a>(&'a self, listing: TableListing<'a>) -> AttemptFuture<'a, Vec<String>> {
        Box::pin(async move {
            let op = op("list_tables");
            let names = match listing {
                TableListing::Namespace(ns) => {
                    self.raw(op, None, |c| Box::pin(c.get_table_names_by_namespace(ns.to_owned()))).await?
                }
                TableListing::Matching { regex, include_system } => {
                    let regex = regex.to_owned();
                    self.raw(op, None, move |c| Box::pin(c.get_table_names_by_pattern(regex, include_system))).await?
                }
            };
            Ok(names.iter().map(name_of).collect())
        })
    }

    fn add_family<'a>(&'a self, table: &'a str, family: &'a ColumnFamily) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = op("add_family");
            self.check_settings(op, None, std::slice::from_ref(family))?;
            let (t, f) = (table_name(table), family_to_thrift(family));
            self.raw(op, Some(table), |c| Box::pin(c.add_column_family(t, f))).await
        })
    }

    fn modify_family<'a>(&'a self, table: &'a str, family: &'a ColumnFamily) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = op("modify_family");
            self.check_settings(op, None, std::slice::from_ref(family))?;
            let (t, f) = (table_name(table), family_to_thrift(family));
            self.raw(op, Some(table), |c| Box::pin(c.modify_column_family(t, f))).await
        })
    }

    fn delete_family<'a>(&'a self, table: &'a str, family: &'a [u8]) -> AttemptFuture<'a, ()> {
        let (t, f) = (table_name(table), family.to_vec());
        self.raw(op("delete_family"), Some(table), |c| Box::pin(c.delete_column_family(t, f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_tables_round_trip_through_thrift_structs() {
        let family = ColumnFamily::new("d")
            .max_versions(3)
            .bloom_filter(BloomFilter::RowCol)
            .compression(Compression::Gz)
            .block_encoding(BlockEncoding::FastDiff)
            .setting("IS_MOB", "true");
        assert_eq!(family_from_thrift(family_to_thrift(&family)), family);
        // A setting named among the attributes as well is read once, typed.
        let mut described = family_to_thrift(&family);
        described.attributes.get_or_insert_with(BTreeMap::new).insert(b"VERSIONS".to_vec(), b"3".to_vec());
        assert_eq!(family_from_thrift(described), family);
        let table = TableDescriptor::new("ns:t").family(family).region_replication(2).max_file_size(1 << 30);
        assert_eq!(table_from_thrift(table_to_thrift(&table)), table);
        assert_eq!(name_of(&table_name("default:t")), "t");
        assert!(has_settings(Some(&table), &[]));
        assert!(!has_settings(Some(&TableDescriptor::new("t").family(ColumnFamily::new("d"))), &[]));
    }
}
