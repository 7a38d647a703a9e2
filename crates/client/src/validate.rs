//! Checks made before anything is sent: HBase's rules for keys, families and names.

use crate::error::InvalidInput;

/// HBase's hard limit on a row key's length.
pub const MAX_ROW_KEY_LEN: usize = i16::MAX as usize;

/// Bytes the meta key adds around a row key: `table,row,99999999999999`.
const META_KEY_OVERHEAD: usize = 16;

/// The longest row key HBase serves through the gateway for `table` (`name` or
/// `namespace:name`): 32767 less 16 and the table name's length (without a
/// `default:` prefix). To find a row's region, HBase looks up the meta row
/// `table,row,99999999999999`, itself a row key bounded by 32767 bytes; with a longer
/// key the gateway retries that lookup until the call times out (once the region's
/// location is cached a longer key may work, but not after a region moves).
pub fn max_row_key_len(table: &str) -> usize {
    let name = table.strip_prefix("default:").unwrap_or(table);
    MAX_ROW_KEY_LEN.saturating_sub(META_KEY_OVERHEAD + name.len())
}

/// A row key must be 1..=32767 bytes.
pub fn row_key(key: &[u8]) -> Result<(), InvalidInput> {
    if key.is_empty() {
        return Err(InvalidInput::EmptyRowKey);
    }
    if key.len() > MAX_ROW_KEY_LEN {
        return Err(InvalidInput::RowKeyTooLong { len: key.len(), max: MAX_ROW_KEY_LEN });
    }
    Ok(())
}

/// A row key of `table` must be 1..=[`max_row_key_len`] bytes.
pub(crate) fn table_row_key(table: &str, key: &[u8]) -> Result<(), InvalidInput> {
    row_key(key)?;
    let max = max_row_key_len(table);
    if key.len() > max {
        return Err(InvalidInput::RowKeyTooLong { len: key.len(), max });
    }
    Ok(())
}

/// A scan bound of `table`: empty (unbounded) or at most [`max_row_key_len`] bytes.
pub(crate) fn table_scan_bound(table: &str, key: &[u8]) -> Result<(), InvalidInput> {
    let max = max_row_key_len(table);
    if key.len() > max {
        return Err(InvalidInput::RowKeyTooLong { len: key.len(), max });
    }
    Ok(())
}

/// A column family name must be non-empty.
pub fn family(family: &[u8]) -> Result<(), InvalidInput> {
    if family.is_empty() {
        return Err(InvalidInput::EmptyFamily);
    }
    Ok(())
}

/// `name` or `namespace:name`, with HBase's character rules: the qualifier uses
/// `[A-Za-z0-9_.-]` and does not start with `.` or `-`; the namespace uses `[A-Za-z0-9_]`.
pub fn table_name(name: &str) -> Result<(), InvalidInput> {
    let bad = |why| InvalidInput::TableName { name: name.to_owned(), why };
    let (namespace, qualifier) = match name.split_once(':') {
        Some((ns, q)) => (Some(ns), q),
        None => (None, name),
    };
    if let Some(ns) = namespace {
        namespace_name(ns).map_err(|_| bad("the namespace must be [A-Za-z0-9_]+"))?;
    }
    if qualifier.is_empty() {
        return Err(bad("the table name is empty"));
    }
    if qualifier.len() > 255 {
        return Err(bad("the table name is longer than 255 bytes"));
    }
    if qualifier.starts_with('.') || qualifier.starts_with('-') {
        return Err(bad("a table name must not start with '.' or '-'"));
    }
    if !qualifier.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-') {
        return Err(bad("a table name uses only [A-Za-z0-9_.-]"));
    }
    Ok(())
}

/// A namespace name: `[A-Za-z0-9_]+`.
pub fn namespace_name(name: &str) -> Result<(), InvalidInput> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(InvalidInput::TableName { name: name.to_owned(), why: "a namespace is [A-Za-z0-9_]+" });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names() {
        for good in ["t", "ns:t", "default:calls_2021", "a.b-c", "hbase:meta"] {
            assert!(table_name(good).is_ok(), "{good}");
        }
        for bad in ["", "ns:", ":t", "-t", ".t", "a b", "ns-x:t", "t/x", "a:b:c"] {
            assert!(table_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keys_and_families() {
        assert_eq!(row_key(b""), Err(InvalidInput::EmptyRowKey));
        assert!(row_key(&[0u8; MAX_ROW_KEY_LEN]).is_ok());
        assert_eq!(row_key(&[0u8; MAX_ROW_KEY_LEN + 1]), Err(InvalidInput::RowKeyTooLong { len: 32768, max: 32767 }));
        // Measured through HBase 2.6's gateway on fresh tables: 32748 works for "p1a",
        // 32749 hangs; 32739 works for "probe_ns:p2a", 32740 hangs.
        assert_eq!(max_row_key_len("p1a"), 32748);
        assert_eq!(max_row_key_len("default:p1a"), 32748);
        assert_eq!(max_row_key_len("probe_ns:p2a"), 32739);
        assert!(table_row_key("p1a", &[1u8; 32748]).is_ok());
        assert_eq!(table_row_key("p1a", &[1u8; 32749]), Err(InvalidInput::RowKeyTooLong { len: 32749, max: 32748 }));
        assert_eq!(family(b""), Err(InvalidInput::EmptyFamily));
    }
}
