//! Checks of row keys and table names before anything is sent.

use crate::error::RpcError;

/// Refuses an empty row key, or one longer than HBase allows (32767 bytes).
pub(crate) fn validate_row(row: &[u8]) -> Result<(), RpcError> {
    if row.is_empty() {
        return Err(RpcError::InvalidArgument("an empty row key".into()));
    }
    if row.len() > i16::MAX as usize {
        return Err(RpcError::InvalidArgument(format!("a row key of {} bytes (HBase's limit is 32767)", row.len())));
    }
    Ok(())
}

/// Refuses a table name with characters HBase does not allow.
pub(crate) fn validate_table(table: &str) -> Result<(), RpcError> {
    let valid =
        !table.is_empty() && table.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
    if valid {
        Ok(())
    } else {
        Err(RpcError::InvalidArgument(format!("invalid table name {table:?}")))
    }
}
