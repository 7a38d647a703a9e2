//! What HBase refuses about a filter on a particular scan, checked before sending: a
//! row-level filter with `batch`, and a reversed scan that would load a family on demand.

use bytes::Bytes;

use super::model::Node;
use super::{Filter, FilterError};

impl Filter {
    /// Whether HBase's filter decides on whole rows (`hasFilterRow()`): `PageFilter`,
    /// `SingleColumnValueFilter` and its `Exclude` variant, `SkipFilter`,
    /// `WhileMatchFilter`, `DependentColumnFilter`, `RandomRowFilter`, and any list
    /// holding one. HBase refuses these on a scan with `batch`.
    pub fn has_filter_row(&self) -> bool {
        self.row_level_filter().is_some()
    }

    /// Whether HBase's filter needs `family` read with the rest of the row
    /// (`isFamilyEssential`). A scan reads the other families on demand, only for rows
    /// the filter keeps, which HBase refuses on reversed scans.
    pub fn is_family_essential(&self, family: &[u8]) -> bool {
        self.non_essential_filter(family).is_none()
    }

    /// The class of the first filter, in this tree, whose state runs across rows and can
    /// end the whole scan: `PageFilter` (rows counted), `WhileMatchFilter` (ends at the
    /// first failure), `ColumnCountGetFilter` (ends past its limit). HBase keeps that state
    /// in one server-side scanner per region, so reading a range as several scanners
    /// (stateless pages, regions read in parallel) changes the answer; `None` when no
    /// such filter is present.
    pub fn scan_spanning_filter(&self) -> Option<&'static str> {
        match &self.node {
            Node::Page(_) => Some("PageFilter"),
            Node::While(_) => Some("WhileMatchFilter"),
            Node::ColumnCountGet(_) => Some("ColumnCountGetFilter"),
            Node::List(_, members) => members.iter().find_map(Filter::scan_spanning_filter),
            Node::Skip(inner) => inner.scan_spanning_filter(),
            Node::Raw(text) => super::parse::parse(text).ok().and_then(|f| f.scan_spanning_filter()),
            Node::SingleColumnValue(_)
            | Node::Quoted(..)
            | Node::MultipleColumnPrefix(_)
            | Node::Compare(..)
            | Node::KeyOnly(_)
            | Node::FirstKeyOnly
            | Node::Timestamps(_)
            | Node::ColumnRange(..)
            | Node::ColumnPagination(..)
            | Node::DependentColumn(_)
            | Node::ColumnValue(..)
            | Node::FuzzyRow(_)
            | Node::MultiRowRange(_)
            | Node::RandomRow(_) => None,
        }
    }

    /// The class of the first filter, in this tree, that decides on whole rows.
    fn row_level_filter(&self) -> Option<&'static str> {
        match &self.node {
            Node::SingleColumnValue(s) => Some(s.class_name()),
            Node::Page(_) => Some("PageFilter"),
            Node::DependentColumn(_) => Some("DependentColumnFilter"),
            Node::RandomRow(_) => Some("RandomRowFilter"),
            Node::Skip(_) => Some("SkipFilter"),
            Node::While(_) => Some("WhileMatchFilter"),
            Node::List(_, members) => members.iter().find_map(Filter::row_level_filter),
            // A raw string that does not parse is left for the server to refuse.
            Node::Raw(text) => super::parse::parse(text).ok().and_then(|f| f.row_level_filter()),
            Node::Quoted(..)
            | Node::MultipleColumnPrefix(_)
            | Node::Compare(..)
            | Node::KeyOnly(_)
            | Node::FirstKeyOnly
            | Node::Timestamps(_)
            | Node::ColumnRange(..)
            | Node::ColumnCountGet(_)
            | Node::ColumnPagination(..)
            | Node::ColumnValue(..)
            | Node::FuzzyRow(_)
            | Node::MultiRowRange(_) => None,
        }
    }

    /// `None` when `family` is essential; else the class of the filter that makes it not.
    fn non_essential_filter(&self, family: &[u8]) -> Option<&'static str> {
        match &self.node {
            Node::SingleColumnValue(s) if s.filter_if_missing && s.family != family => Some(s.class_name()),
            Node::ColumnValue(f, ..) if f != family => Some("ColumnValueFilter"),
            Node::SingleColumnValue(_) | Node::ColumnValue(..) => None,
            // A list needs a family when any member does (an empty list needs every one).
            Node::List(_, members) => {
                let mut found = None;
                for m in members {
                    found = Some(m.non_essential_filter(family)?);
                }
                found
            }
            Node::Skip(inner) | Node::While(inner) => inner.non_essential_filter(family),
            Node::Raw(text) => super::parse::parse(text).ok().and_then(|f| f.non_essential_filter(family)),
            Node::Quoted(..)
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
            | Node::FuzzyRow(_)
            | Node::MultiRowRange(_)
            | Node::RandomRow(_) => None,
        }
    }
}

/// The refusals HBase 2.6 makes about a scan's filter, checked on the client.
///
/// - `batch` with a filter that decides on whole rows: HBase's `Scan.setFilter` /
///   `setBatch` throw `IncompatibleFilterException`.
/// - a reversed scan where the filter does not need one of the families read: with
///   on-demand family loading (HBase's default, which Thrift2 cannot turn off), the region
///   server throws "Reverse scan with loading CFs on demand is not supported". Checked
///   against the families the scan names; a scan naming none reads every family of the
///   table, which the client does not know, so HBase alone decides then.
pub fn check_scan_filter(
    filter: &Filter,
    batch: Option<i32>,
    reversed: bool,
    families: &[&[u8]],
) -> Result<(), FilterError> {
    if let Some(batch) = batch.filter(|b| *b > 0) {
        if let Some(class) = filter.row_level_filter() {
            return Err(FilterError::RowFilterWithBatch { filter: class, batch });
        }
    }
    if reversed {
        for family in families {
            if let Some(class) = filter.non_essential_filter(family) {
                return Err(FilterError::ReversedOnDemand { filter: class, family: Bytes::copy_from_slice(family) });
            }
        }
    }
    Ok(())
}
