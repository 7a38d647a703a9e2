//! Merged salted scans through the library's `Table::salted(schema).scan(query)`: one
//! scanner per planned range (salt bucket), heap-merged on the logical key.

use basalt::{Row, SaltedCursor, SaltedStream, Scan, Table};
use basalt_rowkey::{Query, Schema};
use futures::StreamExt;

use crate::error::CliResult;

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
        let mut scan = table.salted(schema.clone()).scan(query).template(template.clone());
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
