//! The transport-neutral meaning of a request, computed once from the public builders
//! and read by every encoder (the gateway's Thrift2 structs and the native protobuf and
//! cell blocks), so that no transport decides it on its own:
//!
//! - [`ColumnSelection`]: which columns a read returns, as HBase's Java client builds a
//!   `Get`'s or `Scan`'s family map from calls in order;
//! - [`delete_cells`]: the cells of a [`Delete`](crate::Delete) as Java's `Delete` holds
//!   them after its `addFamily` clears the family's earlier cells;
//! - [`BatchRegrouper`]: a batched scan's pieces regrouped into items of exactly `batch`
//!   cells, as Java's `BatchScanResultCache` hands them out;
//! - [`ScanExtras`] and [`FamilyWindow`]: raw scans, per-family windows and partial
//!   rows, as Java's `Scan` and `Get` mean them.

mod columns;
mod deletes;
mod regroup;
mod scan_extras;

pub(crate) use columns::ColumnSelection;
pub(crate) use deletes::{delete_cells, DeleteSpec};
pub(crate) use regroup::{BatchRegrouper, Piece};
pub(crate) use scan_extras::{FamilyWindow, ScanExtras, RAW_ATTRIBUTE, RAW_TRUE};
