//! Table and namespace names, checked as HBase's `TableName` and
//! `NamespaceDescriptor` check them before anything is sent.

use bytes::Bytes;

use crate::error::RpcError;
use crate::pb;

/// The longest namespace or qualifier accepted (a path component on HDFS).
const MAX_NAME_LEN: usize = 255;

/// HBase's default namespace: tables named without a namespace live there.
pub const DEFAULT_NAMESPACE: &str = "default";
/// HBase's system namespace (`hbase:meta`, ...).
pub const SYSTEM_NAMESPACE: &str = "hbase";

fn invalid(what: &str, name: &str, why: &str) -> RpcError {
    RpcError::InvalidArgument(format!("invalid {what} {name:?}: {why}"))
}

/// Checks a namespace name: 1 to 255 of `[A-Za-z0-9_]`.
pub fn validate_namespace(name: &str) -> Result<(), RpcError> {
    if name.is_empty() {
        return Err(invalid("namespace", name, "empty"));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(invalid("namespace", name, "longer than 255 bytes"));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(invalid("namespace", name, "only letters, digits and '_' are allowed"));
    }
    Ok(())
}

/// Checks a table qualifier: 1 to 255 of `[A-Za-z0-9_.-]`, not starting with `.` or `-`.
fn validate_qualifier(full: &str, qualifier: &str) -> Result<(), RpcError> {
    if qualifier.is_empty() {
        return Err(invalid("table name", full, "empty qualifier"));
    }
    if qualifier.len() > MAX_NAME_LEN {
        return Err(invalid("table name", full, "qualifier longer than 255 bytes"));
    }
    if qualifier.starts_with(['.', '-']) {
        return Err(invalid("table name", full, "a qualifier cannot start with '.' or '-'"));
    }
    if !qualifier.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) {
        return Err(invalid("table name", full, "only letters, digits, '_', '-' and '.' are allowed"));
    }
    Ok(())
}

/// Checks a snapshot name: the rules of a table qualifier.
pub(crate) fn validate_snapshot_name(name: &str) -> Result<(), RpcError> {
    validate_qualifier(name, name).map_err(|_| invalid("snapshot name", name, "the rules of a table qualifier apply"))
}

/// A table's name split as HBase holds it; `default:t` and `t` are the same table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableName {
    pub namespace: String,
    pub qualifier: String,
}

impl TableName {
    /// Parses and checks `namespace:qualifier` or `qualifier`.
    pub fn parse(name: &str) -> Result<TableName, RpcError> {
        let (namespace, qualifier) = match name.split_once(':') {
            Some((namespace, qualifier)) => (namespace, qualifier),
            None => (DEFAULT_NAMESPACE, name),
        };
        validate_namespace(namespace).map_err(|_| invalid("table name", name, "bad namespace"))?;
        validate_qualifier(name, qualifier)?;
        Ok(TableName { namespace: namespace.to_owned(), qualifier: qualifier.to_owned() })
    }

    /// The name as a request carries it.
    pub fn to_proto(&self) -> pb::TableName {
        pb::TableName {
            namespace: Bytes::from(self.namespace.clone().into_bytes()),
            qualifier: Bytes::from(self.qualifier.clone().into_bytes()),
        }
    }

    /// Whether it is a system table (namespace `hbase`).
    pub fn is_system(&self) -> bool {
        self.namespace == SYSTEM_NAMESPACE
    }
}

/// A table name proto in HBase's spelling (`t` in the default namespace, else `ns:t`).
pub(crate) fn table_string(name: &pb::TableName) -> String {
    crate::region::table_name_string(name)
}

/// Parses `name` and sends it as a proto: the check and the conversion most calls need.
pub(crate) fn table_proto(name: &str) -> Result<pb::TableName, RpcError> {
    Ok(TableName::parse(name)?.to_proto())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_hbase_does() {
        let t = TableName::parse("ns_1:my-table.v2").unwrap();
        assert_eq!((t.namespace.as_str(), t.qualifier.as_str()), ("ns_1", "my-table.v2"));
        assert_eq!(TableName::parse("plain").unwrap().namespace, "default");
        assert!(TableName::parse("hbase:meta").unwrap().is_system());
        for bad in ["", ":", "ns:", ":t", "a b", "ns-x:t", ".t", "-t", "ns:t:u", "t/x", "é"] {
            assert!(TableName::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert!(TableName::parse(&"x".repeat(256)).is_err());
        assert!(TableName::parse(&"x".repeat(255)).is_ok());
        assert!(validate_namespace("ns_2").is_ok());
        for bad in ["", "a-b", "a.b", "a:b"] {
            assert!(validate_namespace(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn default_namespace_is_left_out_of_names() {
        let proto = TableName::parse("default:t").unwrap().to_proto();
        assert_eq!(table_string(&proto), "t");
        assert_eq!(table_string(&TableName::parse("ns:t").unwrap().to_proto()), "ns:t");
    }
}
