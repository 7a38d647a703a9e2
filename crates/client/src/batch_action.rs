//! One action of a mixed batch ([`Table::batch`](crate::Table::batch)): part of the
//! request model both transports read.

use bytes::Bytes;

use crate::error::Result;
use crate::ops::{Append, Delete, Get, Increment, Put};
use crate::transport::Operation;

/// One action of a mixed batch ([`Table::batch`](crate::Table::batch)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BatchAction {
    /// Read a row (boxed: a get's options outweigh every write).
    Get(Box<Get>),
    /// Write cells.
    Put(Put),
    /// Delete cells (any kinds).
    Delete(Delete),
    /// Add to counters; answers the new values.
    Increment(Increment),
    /// Append to cells; answers the new values.
    Append(Append),
}

impl From<Get> for BatchAction {
    fn from(get: Get) -> BatchAction {
        BatchAction::Get(Box::new(get))
    }
}

impl From<Put> for BatchAction {
    fn from(put: Put) -> BatchAction {
        BatchAction::Put(put)
    }
}

impl From<Delete> for BatchAction {
    fn from(delete: Delete) -> BatchAction {
        BatchAction::Delete(delete)
    }
}

impl From<Increment> for BatchAction {
    fn from(increment: Increment) -> BatchAction {
        BatchAction::Increment(increment)
    }
}

impl From<Append> for BatchAction {
    fn from(append: Append) -> BatchAction {
        BatchAction::Append(append)
    }
}

impl BatchAction {
    /// The row the action reads or writes.
    pub fn row(&self) -> &Bytes {
        match self {
            BatchAction::Get(get) => get.row(),
            BatchAction::Put(put) => put.row(),
            BatchAction::Delete(delete) => delete.row_key(),
            BatchAction::Increment(increment) => increment.row(),
            BatchAction::Append(append) => append.row(),
        }
    }

    /// The operation the action is, as its errors name it.
    pub(crate) fn operation(&self) -> Operation {
        match self {
            BatchAction::Get(_) => Operation::Get,
            BatchAction::Put(_) => Operation::Put,
            BatchAction::Delete(_) => Operation::Delete,
            BatchAction::Increment(_) => Operation::Increment,
            BatchAction::Append(_) => Operation::Append,
        }
    }

    /// Whether it carries a nonce (increments and appends).
    pub(crate) fn counts(&self) -> bool {
        match self {
            BatchAction::Get(_) | BatchAction::Put(_) | BatchAction::Delete(_) => false,
            BatchAction::Increment(_) | BatchAction::Append(_) => true,
        }
    }

    /// Refuses what HBase would reject, on any transport.
    pub(crate) fn validate(&self, max_value: usize) -> Result<()> {
        match self {
            BatchAction::Get(get) => get.validate(),
            BatchAction::Put(put) => put.validate(max_value),
            BatchAction::Delete(delete) => delete.validate(),
            BatchAction::Increment(increment) => increment.validate(),
            BatchAction::Append(append) => append.validate(),
        }
    }
}
