//! Check-and-mutate as HBase 2.4's `CheckAndMutate`: a condition on a column or on a
//! filter, optionally within a time range, guarding a put, a delete, an increment, an
//! append or row mutations; the answer says whether it was applied and carries an
//! increment's or append's result.

use bytes::Bytes;

use crate::error::{InvalidInput, Result};
use crate::filter::{CompareOp, Filter};
use crate::ops::{Append, Delete, Increment, Put, RowMutations};
use crate::options::checked_range;
use crate::row::Row;
use crate::validate;

/// What a [`CheckAndMutate`] tests.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CheckTest {
    /// A column compared to a value (`None`: the column must be absent).
    Column { family: Bytes, qualifier: Bytes, op: CompareOp, value: Option<Bytes> },
    /// A filter that must let a cell of the row through (Java's `ifMatches(filter)`).
    Filter(Filter),
}

/// What a [`CheckAndMutate`] applies when its condition holds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CheckedAction {
    /// One put.
    Put(Put),
    /// One delete, of any kinds.
    Delete(Delete),
    /// One increment; its new values are the answer's row.
    Increment(Increment),
    /// One append; its new values are the answer's row.
    Append(Append),
    /// Row mutations, applied atomically; their increments' and appends' new values
    /// are the answer's row.
    Mutations(RowMutations),
}

impl From<Put> for CheckedAction {
    fn from(put: Put) -> CheckedAction {
        CheckedAction::Put(put)
    }
}

impl From<Delete> for CheckedAction {
    fn from(delete: Delete) -> CheckedAction {
        CheckedAction::Delete(delete)
    }
}

impl From<Increment> for CheckedAction {
    fn from(increment: Increment) -> CheckedAction {
        CheckedAction::Increment(increment)
    }
}

impl From<Append> for CheckedAction {
    fn from(append: Append) -> CheckedAction {
        CheckedAction::Append(append)
    }
}

impl From<RowMutations> for CheckedAction {
    fn from(mutations: RowMutations) -> CheckedAction {
        CheckedAction::Mutations(mutations)
    }
}

impl CheckedAction {
    /// The row the action writes.
    pub fn row(&self) -> &Bytes {
        match self {
            CheckedAction::Put(put) => put.row(),
            CheckedAction::Delete(delete) => delete.row_key(),
            CheckedAction::Increment(increment) => increment.row(),
            CheckedAction::Append(append) => append.row(),
            CheckedAction::Mutations(mutations) => mutations.row(),
        }
    }

    /// Whether it holds an increment or an append (carried over native RPC only).
    pub(crate) fn counts(&self) -> bool {
        match self {
            CheckedAction::Put(_) | CheckedAction::Delete(_) => false,
            CheckedAction::Increment(_) | CheckedAction::Append(_) => true,
            CheckedAction::Mutations(mutations) => mutations.counts(),
        }
    }
}

/// A conditional mutation of one row, as Java's `CheckAndMutate`:
/// `CheckAndMutate::new(action).if_column(..)` or `.if_filter(..)`, optionally
/// `.time_range(..)`, run by [`Table::check_and_mutate_with`](crate::Table::check_and_mutate_with).
///
/// Through the Thrift2 gateway only a column condition without a time range guarding a
/// put, a delete or row mutations of puts and deletes can be sent; the rest is refused
/// as [`InvalidInput::Untranslatable`] (native RPC carries all of it).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckAndMutate {
    pub(crate) test: Option<CheckTest>,
    pub(crate) time_range: Option<(i64, i64)>,
    pub(crate) action: CheckedAction,
}

impl CheckAndMutate {
    /// Applies `action` (a [`Put`], [`Delete`], [`Increment`], [`Append`] or
    /// [`RowMutations`]) on its row once a condition is given.
    pub fn new(action: impl Into<CheckedAction>) -> CheckAndMutate {
        CheckAndMutate { test: None, time_range: None, action: action.into() }
    }

    /// The condition: `family:qualifier` compares to `value` with `op` (HBase's order:
    /// `value op stored`), or with `value` `None`, the column is absent.
    pub fn if_column(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        value: Option<Bytes>,
    ) -> CheckAndMutate {
        self.test = Some(CheckTest::Column { family: family.into(), qualifier: qualifier.into(), op, value });
        self
    }

    /// The condition: `filter` lets some cell of the row through (Java's
    /// `ifMatches(filter)`; native RPC only).
    pub fn if_filter(mut self, filter: Filter) -> CheckAndMutate {
        self.test = Some(CheckTest::Filter(filter));
        self
    }

    /// The condition looks only at cells with `min <= timestamp < max` (native RPC only).
    pub fn time_range(mut self, min: i64, max: i64) -> CheckAndMutate {
        self.time_range = Some((min, max));
        self
    }

    /// The row checked and written.
    pub fn row(&self) -> &Bytes {
        self.action.row()
    }

    /// The action applied when the condition holds.
    pub fn action(&self) -> &CheckedAction {
        &self.action
    }

    /// Refuses what HBase would reject, on any transport: no condition, a bad family or
    /// time range, an action its own checks refuse.
    pub(crate) fn validate(&self, max_value: usize) -> Result<()> {
        match &self.test {
            None => return Err(InvalidInput::Option("a check-and-mutate needs a condition".into()).into()),
            Some(CheckTest::Column { family, .. }) => validate::family(family)?,
            Some(CheckTest::Filter(_)) => {}
        }
        if let Some((min, max)) = self.time_range {
            checked_range(min, max)?;
        }
        match &self.action {
            CheckedAction::Put(put) => put.validate(max_value),
            CheckedAction::Delete(delete) => delete.validate(),
            CheckedAction::Increment(increment) => increment.validate(),
            CheckedAction::Append(append) => append.validate(),
            CheckedAction::Mutations(mutations) => mutations.validate(max_value),
        }
    }
}

/// What a [`CheckAndMutate`] answered.
#[derive(Debug, Clone, Default)]
pub struct CheckAndMutateResult {
    pub(crate) applied: bool,
    pub(crate) row: Row,
}

impl CheckAndMutateResult {
    /// An answer: whether the action was applied, and the new values it returned.
    pub fn new(applied: bool, row: Row) -> CheckAndMutateResult {
        CheckAndMutateResult { applied, row }
    }

    /// Whether the condition held and the action was applied.
    pub fn is_applied(&self) -> bool {
        self.applied
    }

    /// The new values of the increments and appends applied (empty otherwise).
    pub fn row(&self) -> &Row {
        &self.row
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table_batch::plain_of;
    use crate::transport::CheckedWrite;

    #[test]
    fn only_column_conditions_without_a_time_range_over_puts_and_deletes_are_plain() {
        let put = Put::new("r").cell("f", "q", "v");
        let plain = CheckAndMutate::new(put.clone()).if_column("f", "q", CompareOp::Equal, None);
        assert!(plain.validate(100).is_ok());
        assert!(matches!(plain_of(&plain), Some((_, CheckedWrite::Put(_)))));
        assert!(plain_of(&plain.clone().time_range(1, 5)).is_none());
        assert!(plain_of(&CheckAndMutate::new(put.clone()).if_filter(Filter::key_only())).is_none());
        let counting = RowMutations::new("r").put(put.clone()).increment(Increment::new("r").add("f", "n", 1));
        let guarded = CheckAndMutate::new(counting).if_column("f", "q", CompareOp::Less, Some(Bytes::from("1")));
        assert!(guarded.validate(100).is_ok() && plain_of(&guarded).is_none());
        let counter =
            CheckAndMutate::new(Increment::new("r").add("f", "n", 1)).if_column("f", "q", CompareOp::Equal, None);
        assert!(plain_of(&counter).is_none());
        // No condition, a bad time range, a bad family: refused on any transport.
        assert!(CheckAndMutate::new(put.clone()).validate(100).is_err());
        assert!(CheckAndMutate::new(put.clone()).if_filter(Filter::key_only()).time_range(5, 1).validate(100).is_err());
        assert!(CheckAndMutate::new(put).if_column("", "q", CompareOp::Equal, None).validate(100).is_err());
    }
}
