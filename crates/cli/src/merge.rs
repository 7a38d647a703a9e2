//! A merged salted scan: one scanner per planned range (salt bucket), all open at once,
//! k-way merged with a heap on the logical (unsalted) key into one ordered stream.
//!
//! The library's own salted scan (`table.salted(schema)`) was not there when this was
//! written; this uses only `Table::scan`, `Schema::plan` and `Schema::logical_key`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use basalt::{Row, RowStream, Scan, Table};
use basalt_rowkey::{ScanPlan, Schema};
use bytes::Bytes;
use futures::StreamExt;

use crate::error::{CliError, CliResult};
use crate::keyfmt::escape;

struct Head {
    logical: Bytes,
    source: usize,
    row: Row,
    reverse: bool,
}

impl Head {
    fn order(&self, other: &Head) -> Ordering {
        let o = self.logical.cmp(&other.logical).then(self.source.cmp(&other.source));
        // BinaryHeap pops the greatest: invert for ascending output.
        if self.reverse {
            o
        } else {
            o.reverse()
        }
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.order(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    fn cmp(&self, other: &Head) -> Ordering {
        self.order(other)
    }
}

/// Rows of several salted ranges in logical-key order (descending when reversed).
pub struct MergedScan {
    schema: Schema,
    streams: Vec<RowStream>,
    heap: BinaryHeap<Head>,
    primed: bool,
    reverse: bool,
    remaining: Option<u64>,
}

impl MergedScan {
    /// Opens one scan per range of `plan`, each built from `template` with the range's
    /// bounds, direction and `limit` (each range needs at most `limit` rows).
    pub fn open(
        table: &Table,
        schema: &Schema,
        plan: &ScanPlan,
        template: &Scan,
        limit: Option<u64>,
    ) -> CliResult<Self> {
        let reverse = plan.reverse;
        let mut streams = Vec::with_capacity(plan.ranges.len());
        for r in &plan.ranges {
            let mut scan = template.clone().start(r.start.clone()).stop(r.stop.clone()).reversed(reverse);
            if let Some(n) = limit {
                scan = scan.limit(n);
            }
            streams.push(table.scan(scan)?);
        }
        Ok(MergedScan {
            schema: schema.clone(),
            streams,
            heap: BinaryHeap::new(),
            primed: false,
            reverse,
            remaining: limit,
        })
    }

    async fn pull(&mut self, source: usize) -> CliResult {
        if let Some(item) = self.streams[source].next().await {
            let row = item?;
            let logical = self
                .schema
                .logical_key(&row.key)
                .map_err(|e| CliError::failed(format!("row {} does not match the schema: {e}", escape(&row.key))))?;
            let logical = row.key.slice(row.key.len() - logical.len()..);
            self.heap.push(Head { logical, source, row, reverse: self.reverse });
        }
        Ok(())
    }

    /// The next row in merged order, `None` at the end.
    pub async fn next(&mut self) -> CliResult<Option<Row>> {
        if !self.primed {
            self.primed = true;
            // Every scanner's first page is requested at once (each runs in its own task).
            for i in 0..self.streams.len() {
                self.pull(i).await?;
            }
        }
        if self.remaining == Some(0) {
            return Ok(None);
        }
        let Some(head) = self.heap.pop() else { return Ok(None) };
        self.pull(head.source).await?;
        if let Some(n) = self.remaining.as_mut() {
            *n -= 1;
        }
        Ok(Some(head.row))
    }

    /// Collects every remaining row.
    pub async fn collect(mut self) -> CliResult<Vec<Row>> {
        let mut rows = Vec::new();
        while let Some(r) = self.next().await? {
            rows.push(r);
        }
        Ok(rows)
    }
}
