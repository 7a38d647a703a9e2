//! Merged salted scans through the library's `Table::salted(schema).scan(query)`: one
//! scanner per planned range (salt bucket), merged on the logical key.

use std::path::PathBuf;

use basalt::{CursorKey, Row, SaltedCursor, SaltedStream, Scan, Table};
use basalt_rowkey::{Query, Schema};
use futures::StreamExt;

use crate::error::CliResult;

/// Environment variable naming the file that holds the key signing salted-scan cursors.
pub const CURSOR_KEY_ENV: &str = "BASALT_CURSOR_KEY_FILE";

/// The key that signs and checks the cursors this command prints and accepts, kept in
/// a file so that a cursor printed by one run resumes in the next: `$BASALT_CURSOR_KEY_FILE`,
/// else `$XDG_CONFIG_HOME/basalt/cursor.key`, else `~/.config/basalt/cursor.key`
/// (created on first use, readable by its owner only).
pub fn cursor_key() -> CliResult<CursorKey> {
    let path = match std::env::var_os(CURSOR_KEY_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => {
            let base = match std::env::var_os("XDG_CONFIG_HOME") {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => match std::env::var_os("HOME") {
                    Some(home) if !home.is_empty() => PathBuf::from(home).join(".config"),
                    _ => std::env::temp_dir(),
                },
            };
            base.join("basalt").join("cursor.key")
        }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    Ok(CursorKey::load_or_create(&path)?)
}

/// Rows of a salted query in logical-key order (descending when the query is reversed).
pub struct MergedScan {
    stream: SaltedStream,
}

impl MergedScan {
    /// Starts the scan of `query`; `template` gives columns, filter and caching.
    pub async fn open(
        table: &Table,
        schema: &Schema,
        query: Query,
        template: &Scan,
        limit: Option<u64>,
        resume: Option<SaltedCursor>,
    ) -> CliResult<MergedScan> {
        let mut scan = table.salted(schema.clone()).cursor_key(cursor_key()?).scan(query).template(template.clone());
        if let Some(n) = limit {
            scan = scan.limit(n);
        }
        if let Some(c) = resume {
            scan = scan.resume(c);
        }
        Ok(MergedScan { stream: scan.stream().await? })
    }

    /// The next row in merged order, `None` at the end.
    pub async fn next(&mut self) -> CliResult<Option<Row>> {
        Ok(self.stream.next().await.transpose()?.map(|r| r.row))
    }

    /// Where the scan stands (each bucket's last returned key), to resume a page later.
    pub fn cursor(&self) -> SaltedCursor {
        self.stream.cursor()
    }

    /// Collects every remaining row.
    pub async fn collect(&mut self) -> CliResult<Vec<Row>> {
        let mut rows = Vec::new();
        while let Some(r) = self.next().await? {
            rows.push(r);
        }
        Ok(rows)
    }
}
