//! The import checkpoint: how far the input is acknowledged by HBase, and the fixed
//! timestamp of the import, so a resumed run writes the same versions again.

use std::path::Path;

use serde_json::json;

use crate::bulk::write_atomic;
use crate::error::{CliError, CliResult};

/// State of an import, saved after acknowledged batches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The table imported into.
    pub table: String,
    /// The input path as given.
    pub input: String,
    /// Every record ending at or before this byte of the (decompressed) input is
    /// acknowledged or rejected.
    pub offset: u64,
    /// Rows written below the offset.
    pub rows: u64,
    /// Rows rejected below the offset.
    pub rejected: u64,
    /// Length of the reject file at the offset (a resumed run truncates it to this).
    pub reject_len: u64,
    /// The timestamp of cells without a timestamp column, fixed at the first run.
    pub timestamp: i64,
    /// The whole input is imported.
    pub complete: bool,
}

impl Checkpoint {
    /// Reads a checkpoint; `None` if there is no file.
    pub fn load(path: &Path) -> CliResult<Option<Checkpoint>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CliError::failed(format!("cannot read checkpoint {}: {e}", path.display()))),
        };
        let bad = |what: &str| CliError::usage(format!("checkpoint {} is damaged ({what})", path.display()));
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|_| bad("not JSON"))?;
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned).ok_or_else(|| bad(k));
        let u = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).ok_or_else(|| bad(k));
        Ok(Some(Checkpoint {
            table: s("table")?,
            input: s("input")?,
            offset: u("offset")?,
            rows: u("rows")?,
            rejected: u("rejected")?,
            reject_len: u("reject_len")?,
            timestamp: v.get("timestamp").and_then(serde_json::Value::as_i64).ok_or_else(|| bad("timestamp"))?,
            complete: v.get("complete").and_then(serde_json::Value::as_bool).ok_or_else(|| bad("complete"))?,
        }))
    }

    /// Saves it atomically (temporary file, then rename).
    pub fn save(&self, path: &Path) -> CliResult {
        let v = json!({
            "table": self.table,
            "input": self.input,
            "offset": self.offset,
            "rows": self.rows,
            "rejected": self.rejected,
            "reject_len": self.reject_len,
            "timestamp": self.timestamp,
            "complete": self.complete,
        });
        write_atomic(path, &format!("{v}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_and_loads() {
        let dir = std::env::temp_dir().join(format!("basalt-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("c.json");
        assert_eq!(Checkpoint::load(&p).unwrap(), None);
        let c = Checkpoint {
            table: "t".into(),
            input: "in.csv".into(),
            offset: 10,
            rows: 3,
            rejected: 1,
            reject_len: 40,
            timestamp: 1_700_000_000_000,
            complete: false,
        };
        c.save(&p).unwrap();
        assert_eq!(Checkpoint::load(&p).unwrap(), Some(c));
        std::fs::write(&p, "{").unwrap();
        assert!(Checkpoint::load(&p).unwrap_err().message.contains("damaged"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
