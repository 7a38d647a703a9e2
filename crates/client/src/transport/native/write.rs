//! Puts and deletes as the native batch encodes them: views of the caller's [`Put`]s and
//! [`Delete`]s whose cells go straight into the request's cell block (no intermediate
//! mutation is built, no value copied before the block).

use basalt_rpc::{CellWriter, RpcError, WriteCells, WriteKind};
use bytes::Bytes;

use crate::error::{Error, InvalidInput};
use crate::ops::{Delete, DeleteSpec, Durability, Put};

/// The WAL setting as the native RPC names it.
pub(super) fn durability(durability: &Durability) -> basalt_rpc::Durability {
    match durability {
        Durability::UseDefault => basalt_rpc::Durability::UseDefault,
        Durability::SkipWal => basalt_rpc::Durability::SkipWal,
        Durability::AsyncWal => basalt_rpc::Durability::AsyncWal,
        Durability::SyncWal => basalt_rpc::Durability::SyncWal,
        Durability::FsyncWal => basalt_rpc::Durability::FsyncWal,
    }
}

/// A timestamp as HBase's protobuf carries it (non-negative).
fn timestamp(ts: i64) -> Result<u64, InvalidInput> {
    u64::try_from(ts).map_err(|_| InvalidInput::Option(format!("a negative timestamp {ts}")))
}

/// A cell's timestamp inside the encoder (checked beforehand by the constructors).
fn cell_timestamp(ts: Option<i64>) -> Result<Option<u64>, RpcError> {
    ts.map(|ts| u64::try_from(ts).map_err(|_| RpcError::InvalidArgument(format!("a negative timestamp {ts}"))))
        .transpose()
}

/// One [`Put`], encoded from its own cells.
pub(super) struct PutWrite<'a> {
    put: &'a Put,
    timestamp: Option<u64>,
    /// Whether it is resent after an attempt that may have run even if a cell is on the
    /// server's clock (the client's `resend_unstamped_puts`).
    resend_unstamped: bool,
}

impl<'a> PutWrite<'a> {
    /// `put`, whose row, families and values the core validated before handing it to
    /// the transport (`Table::put`, `Table::put_many`); its timestamps are checked again
    /// here as the encoder needs them (not negative). A put on the server's clock is
    /// resent after an attempt that may have run only if `resend_unstamped`.
    pub(super) fn new(put: &'a Put, resend_unstamped: bool) -> Result<PutWrite<'a>, Error> {
        for (_, _, _, ts) in &put.cells {
            if let Some(ts) = ts {
                timestamp(*ts)?;
            }
        }
        Ok(PutWrite { put, timestamp: put.timestamp.map(timestamp).transpose()?, resend_unstamped })
    }
}

impl WriteCells for PutWrite<'_> {
    fn row(&self) -> &Bytes {
        &self.put.row
    }

    fn is_idempotent(&self) -> bool {
        // A put on the server's clock writes one more version each time it is applied.
        self.resend_unstamped || !crate::resend::puts_on_server_clock(self.put)
    }

    fn kind(&self) -> WriteKind {
        WriteKind::Put
    }

    fn timestamp(&self) -> Option<u64> {
        self.timestamp
    }

    fn durability(&self) -> Option<basalt_rpc::Durability> {
        Some(durability(&self.put.durability))
    }

    fn cells_len_hint(&self) -> usize {
        let row = &self.put.row;
        self.put
            .cells
            .iter()
            .map(|(family, qualifier, value, _)| CellWriter::cell_len(row, family, qualifier, value))
            .sum()
    }

    fn write_cells(&self, cells: &mut CellWriter<'_>) -> Result<(), RpcError> {
        for (family, qualifier, value, ts) in &self.put.cells {
            cells.put(family, qualifier, value, cell_timestamp(*ts)?)?;
        }
        Ok(())
    }
}

/// A [`Delete`] as one native delete: the whole row, or its cells in Java's order after
/// Java's clear rules ([`Delete::cells`]). One mutation, as Java's client sends it: the
/// server counts a column's repeated latest-version deletes only within one mutation.
pub(super) struct DeleteWrite<'a> {
    delete: &'a Delete,
    cells: Vec<DeleteSpec>,
    timestamp: Option<u64>,
}

impl<'a> DeleteWrite<'a> {
    /// Checks `delete` and appends its native delete to `writes`: exactly one write (HBase
    /// counts repeated latest-version deletes of a column only within one mutation).
    pub(super) fn push(delete: &'a Delete, writes: &mut Vec<DeleteWrite<'a>>) -> Result<(), Error> {
        crate::validate::row_key(&delete.row)?;
        let row_timestamp = delete.row_timestamp.map(timestamp).transpose()?;
        let cells = delete.cells();
        for cell in &cells {
            let ts = match cell {
                DeleteSpec::ColumnVersion(_, _, ts)
                | DeleteSpec::ColumnAllVersions(_, _, ts)
                | DeleteSpec::Family(_, ts) => *ts,
                DeleteSpec::FamilyVersion(_, ts) => Some(*ts),
            };
            if let Some(ts) = ts {
                timestamp(ts)?;
            }
        }
        writes.push(DeleteWrite { delete, cells, timestamp: row_timestamp });
        Ok(())
    }
}

impl WriteCells for DeleteWrite<'_> {
    fn row(&self) -> &Bytes {
        &self.delete.row
    }

    fn is_idempotent(&self) -> bool {
        // A delete of a column's newest version removes one more each time it is applied.
        !self.cells.iter().any(crate::resend::deletes_newest_version)
    }

    fn kind(&self) -> WriteKind {
        WriteKind::Delete
    }

    fn timestamp(&self) -> Option<u64> {
        self.timestamp
    }

    fn durability(&self) -> Option<basalt_rpc::Durability> {
        Some(durability(&self.delete.durability))
    }

    fn write_cells(&self, cells: &mut CellWriter<'_>) -> Result<(), RpcError> {
        for cell in &self.cells {
            match cell {
                DeleteSpec::ColumnVersion(family, qualifier, ts) => {
                    cells.delete_version(family, qualifier, cell_timestamp(*ts)?)?
                }
                DeleteSpec::ColumnAllVersions(family, qualifier, ts) => {
                    cells.delete_column(family, qualifier, cell_timestamp(*ts)?)?
                }
                DeleteSpec::Family(family, ts) => cells.delete_family(family, cell_timestamp(*ts)?)?,
                DeleteSpec::FamilyVersion(family, ts) => match cell_timestamp(Some(*ts))? {
                    Some(ts) => cells.delete_family_version(family, ts)?,
                    None => {
                        return Err(RpcError::InvalidArgument("a family version delete without a timestamp".into()))
                    }
                },
            }
        }
        Ok(())
    }
}
