//! The checks HBase's filter constructors make on their arguments, shared by the
//! parser, the renderer and [`Filter::validate`] (which the protobuf encoder runs).

use super::model::{Comparator, CompareOp, Node, PageStart, RowRange};
use super::{Filter, FilterError};

/// The checks HBase's filter-language factories make on an operator and a comparator.
pub(super) fn check_comparator(op: CompareOp, cmp: &Comparator) -> Result<(), FilterError> {
    if cmp.equality_only() && !matches!(op, CompareOp::Equal | CompareOp::NotEqual) {
        return Err(FilterError::UnsupportedCompareOp(cmp.type_name(), op));
    }
    Ok(())
}

/// Checks the arguments of one node (not its members), as HBase's constructors would.
pub(super) fn check_node(node: &Node) -> Result<(), FilterError> {
    match node {
        Node::SingleColumnValue(s) => check_comparator(s.op, &s.cmp),
        Node::Compare(_, op, cmp) | Node::ColumnValue(_, _, op, cmp) => check_comparator(*op, cmp),
        Node::Page(size) if *size < 0 => Err(FilterError::InvalidPageSize(*size)),
        Node::Timestamps(ts) => match ts.iter().find(|t| **t < 0) {
            Some(bad) => Err(FilterError::NegativeTimestamp(*bad)),
            None => Ok(()),
        },
        Node::ColumnRange(min, max) => {
            // HBase maps an empty bound to "unbounded", which would silently change the meaning.
            if matches!(min, Some((b, false)) if b.is_empty()) {
                return Err(FilterError::EmptyColumnRangeBound("min"));
            }
            if matches!(max, Some((b, _)) if b.is_empty()) {
                return Err(FilterError::EmptyColumnRangeBound("max"));
            }
            Ok(())
        }
        Node::ColumnCountGet(limit) if *limit < 0 => Err(FilterError::NegativeColumnCount(*limit)),
        Node::ColumnPagination(limit, _) if *limit < 0 => Err(FilterError::NegativeColumnPagination("limit", *limit)),
        Node::ColumnPagination(_, PageStart::Offset(offset)) if *offset < 0 => {
            Err(FilterError::NegativeColumnPagination("offset", *offset))
        }
        Node::FuzzyRow(keys) => {
            for (key, mask) in keys {
                if key.len() != mask.len() {
                    return Err(FilterError::FuzzyLengthMismatch { key: key.len(), mask: mask.len() });
                }
                if let Some(bad) = mask.iter().find(|b| **b > 1) {
                    return Err(FilterError::FuzzyMaskByte(*bad));
                }
            }
            Ok(())
        }
        Node::MultiRowRange(ranges) if ranges.is_empty() => Err(FilterError::EmptyRowRanges),
        Node::MultiRowRange(ranges) => match ranges.iter().find(|r| inverted(r)) {
            Some(_) => Err(FilterError::InvertedRowRange),
            None => Ok(()),
        },
        Node::Raw(text) if text.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) => Err(FilterError::EmptyRaw),
        Node::List(_, members) if members.is_empty() => Err(FilterError::EmptyFilterList),
        Node::Page(_)
        | Node::ColumnCountGet(_)
        | Node::ColumnPagination(..)
        | Node::Quoted(..)
        | Node::MultipleColumnPrefix(_)
        | Node::KeyOnly(_)
        | Node::FirstKeyOnly
        | Node::DependentColumn(_)
        | Node::RandomRow(_)
        | Node::Raw(_)
        | Node::List(..)
        | Node::Skip(_)
        | Node::While(_) => Ok(()),
    }
}

fn inverted(r: &RowRange) -> bool {
    !r.start.is_empty() && !r.stop.is_empty() && r.start > r.stop
}

/// Checks a whole filter as HBase would on receiving it: every node's arguments
/// ([`check_node`]), a raw string's parse, and what HBase 2.6 cannot run under a `SKIP`.
pub(super) fn check_tree(filter: &Filter) -> Result<(), FilterError> {
    refuse_under_skip(filter, false)?;
    check_nodes(filter)
}

fn check_nodes(filter: &Filter) -> Result<(), FilterError> {
    check_node(&filter.node)?;
    match &filter.node {
        Node::Raw(text) => {
            let parsed = Filter::parse_bytes(text).map_err(|e| FilterError::RawUnparsable(Box::new(e)))?;
            check_nodes(&parsed)
        }
        Node::List(_, members) => members.iter().try_for_each(check_nodes),
        Node::Skip(inner) | Node::While(inner) => check_nodes(inner),
        Node::SingleColumnValue(_)
        | Node::Quoted(..)
        | Node::Page(_)
        | Node::MultipleColumnPrefix(_)
        | Node::Compare(..)
        | Node::KeyOnly(_)
        | Node::FirstKeyOnly
        | Node::Timestamps(_)
        | Node::ColumnRange(..)
        | Node::ColumnCountGet(_)
        | Node::ColumnPagination(..)
        | Node::DependentColumn(_)
        | Node::ColumnValue(..)
        | Node::FuzzyRow(_)
        | Node::MultiRowRange(_)
        | Node::RandomRow(_) => Ok(()),
    }
}

/// Refuses a `MultiRowRangeFilter` anywhere under a `SKIP`: its `filterCell` answers what
/// its `filterRowKey` decided, which `SkipFilter` never calls, so HBase 2.6's region
/// server fails on a null return code (measured: `SKIP` fails, `WHILE`, `AND` and `OR`
/// work).
fn refuse_under_skip(filter: &Filter, under_skip: bool) -> Result<(), FilterError> {
    match &filter.node {
        Node::MultiRowRange(_) if under_skip => Err(FilterError::UnsupportedUnderSkip("MultiRowRangeFilter")),
        Node::List(_, members) => members.iter().try_for_each(|m| refuse_under_skip(m, under_skip)),
        Node::Skip(inner) => refuse_under_skip(inner, true),
        Node::While(inner) => refuse_under_skip(inner, under_skip),
        Node::Raw(text) => match Filter::parse_bytes(text) {
            Ok(parsed) => refuse_under_skip(&parsed, under_skip),
            Err(_) => Ok(()),
        },
        Node::MultiRowRange(_)
        | Node::SingleColumnValue(_)
        | Node::Quoted(..)
        | Node::Page(_)
        | Node::MultipleColumnPrefix(_)
        | Node::Compare(..)
        | Node::KeyOnly(_)
        | Node::FirstKeyOnly
        | Node::Timestamps(_)
        | Node::ColumnRange(..)
        | Node::ColumnCountGet(_)
        | Node::ColumnPagination(..)
        | Node::DependentColumn(_)
        | Node::ColumnValue(..)
        | Node::FuzzyRow(_)
        | Node::RandomRow(_) => Ok(()),
    }
}

/// Whether every part of the filter has a form in the filter language.
pub(super) fn in_language(filter: &Filter) -> bool {
    let cmp_ok = |c: &Comparator| c.language_value().is_some();
    match &filter.node {
        Node::SingleColumnValue(s) => cmp_ok(&s.cmp),
        Node::Compare(_, _, c) | Node::ColumnValue(_, _, _, c) => cmp_ok(c),
        Node::DependentColumn(d) => d.value.as_ref().is_none_or(|(_, c)| cmp_ok(c)),
        Node::ColumnPagination(_, start) => matches!(start, PageStart::Offset(_)),
        Node::FuzzyRow(_) | Node::MultiRowRange(_) | Node::RandomRow(_) => false,
        Node::Quoted(..)
        | Node::Page(_)
        | Node::MultipleColumnPrefix(_)
        | Node::KeyOnly(_)
        | Node::FirstKeyOnly
        | Node::Timestamps(_)
        | Node::ColumnRange(..)
        | Node::ColumnCountGet(_)
        | Node::Raw(_) => true,
        Node::List(_, members) => members.iter().all(in_language),
        Node::Skip(inner) | Node::While(inner) => in_language(inner),
    }
}
