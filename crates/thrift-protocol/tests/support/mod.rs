//! Replies written by the `thrift` crate's own writer (shared by the tests of
//! `basalt-thrift-protocol` and `basalt-thrift`), and read back by the generated
//! reader: the reference the zero-copy decoder is compared with.
#![allow(dead_code)]

mod replies;

use basalt_thrift_protocol::hbase::TResult;
use basalt_thrift_protocol::{CellData, RowData};
use bytes::Bytes;
pub use replies::*;

/// The owned rows the zero-copy decoder must give for `results`.
pub fn expected(results: &[TResult]) -> Vec<RowData> {
    results.iter().map(expected_row).collect()
}

pub fn expected_row(r: &TResult) -> RowData {
    RowData {
        row: Bytes::from(r.row.clone().unwrap_or_default()),
        cells: r
            .column_values
            .iter()
            .map(|c| CellData {
                family: Bytes::from(c.family.clone()),
                qualifier: Bytes::from(c.qualifier.clone()),
                value: Bytes::from(c.value.clone()),
                timestamp: c.timestamp,
                tags: c.tags.clone().map(Bytes::from),
                cell_type: c.type_,
            })
            .collect(),
        partial: r.partial.unwrap_or(false),
        stale: r.stale.unwrap_or(false),
    }
}
