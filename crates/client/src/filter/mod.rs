//! Server-side filters: a typed builder, HBase's filter language (render and parse), and
//! the checks HBase makes on them. (The transports write the serialized protobuf form.)
//!
//! A [`Filter`] goes to HBase in one of two forms. Filters that HBase's filter language
//! can write (everything `org.apache.hadoop.hbase.filter.ParseFilter` knows, with the
//! `binary`, `binaryprefix`, `regexstring`, `regexstringnocase` and `substring`
//! comparators) are sent as that string (`TScan.filterString` / `TGet.filterString`);
//! the rest (the Long, Bit, Null and BinaryComponent comparators, `FuzzyRowFilter`,
//! `MultiRowRangeFilter`, `RandomRowFilter`, a column pagination starting at a column) as
//! a serialized `hbase.pb.Filter` (`filterBytes`), exactly as the Java client would.
//!
//! ```
//! use basalt::filter::{CompareOp, Comparator, Filter};
//!
//! let active = Filter::single_column_value("d", "state", CompareOp::Equal, Comparator::binary("on"));
//! let f = Filter::prefix("u#").and(active).or(Filter::row(CompareOp::Equal, Comparator::binary("root")));
//! let want = "(PrefixFilter('u#') AND SingleColumnValueFilter('d', 'state', =, 'binary:on')) \
//!     OR RowFilter(=, 'binary:root')";
//! assert_eq!(f.render()?, want.as_bytes());
//! // The same filter, parsed from the language.
//! assert_eq!(Filter::parse(want)?, f);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Builders never fail; all validation happens in [`Filter::validate`] (and
//! [`Filter::render`]), which return a [`FilterError`] for arguments the server would
//! reject (or silently misinterpret). Byte-string arguments are written as raw bytes
//! between single quotes with every `'` (0x27) doubled, so arbitrary binary values (not
//! only UTF-8) reach the server unchanged.
//!
//! [`Filter::parse`] reads the filter language on the client, with HBase's precedence
//! (`SKIP` and `WHILE` bind tightest, then `AND`, then `OR`) and parentheses, and says what
//! is wrong and where ([`FilterParseError::position`]). Rendering a parsed filter gives a
//! canonical string that parses to the same filter.

mod check;
mod model;
mod parse;
mod render;
mod scan_check;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_parse;
#[cfg(test)]
mod tests_scan;

use bytes::Bytes;

pub use model::{BitwiseOp, Comparator, CompareOp, DependentColumn, RowRange, SingleColumnValue};
pub use parse::{FilterParseError, ParseErrorKind};
pub(crate) use render::filter_string;
pub use scan_check::check_scan_filter;

// The model's internals, for the protobuf encoder (`transport/filter_protobuf.rs`).
pub(crate) use model::{CompareKind, ListOp, Node, PageStart, QuotedKind};

/// Errors reported when a filter cannot be sent as built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// A `regexstring`/`substring` comparator (named by the first field) was given non-UTF-8 bytes.
    #[error("{0} comparator requires UTF-8 text: {1}")]
    InvalidUtf8(&'static str, std::str::Utf8Error),
    /// A `regexstring`/`substring` comparator was combined with an operator other than `=`/`!=`.
    #[error("{0} comparator only supports = and != (got {1})")]
    UnsupportedCompareOp(&'static str, CompareOp),
    /// `PageFilter` size was negative.
    #[error("PageFilter size must be >= 0 (got {0})")]
    InvalidPageSize(i64),
    /// `TimestampsFilter` was given a negative timestamp.
    #[error("TimestampsFilter timestamps must be >= 0 (got {0})")]
    NegativeTimestamp(i64),
    /// `ColumnCountGetFilter` limit was negative.
    #[error("ColumnCountGetFilter limit must be >= 0 (got {0})")]
    NegativeColumnCount(i32),
    /// A `ColumnPaginationFilter` limit or offset (named) was negative.
    #[error("ColumnPaginationFilter {0} must be >= 0 (got {1})")]
    NegativeColumnPagination(&'static str, i32),
    /// A `ColumnRangeFilter` bound (`min`/`max`) was empty, which HBase would read as "unbounded".
    #[error("ColumnRangeFilter {0} bound is empty; HBase treats an empty bound as unbounded (use None)")]
    EmptyColumnRangeBound(&'static str),
    /// A filter list (`AND`/`OR`) had no members.
    #[error("filter list is empty")]
    EmptyFilterList,
    /// A raw filter string was empty or only whitespace.
    #[error("raw filter string is empty")]
    EmptyRaw,
    /// A raw filter string had to be read (to serialize it, or to check it against the
    /// scan) and is not valid filter language.
    #[error("raw filter string does not parse: {0}")]
    RawUnparsable(Box<FilterParseError>),
    /// The filter has no form in HBase's filter language (it is sent as protobuf instead).
    #[error("{0} has no form in HBase's filter language (it travels as a serialized protobuf filter)")]
    NotInFilterLanguage(&'static str),
    /// A `FuzzyRowFilter` key and its mask differ in length.
    #[error("FuzzyRowFilter key of {key} bytes has a mask of {mask} bytes; they must be equal")]
    FuzzyLengthMismatch {
        /// The key's length.
        key: usize,
        /// The mask's length.
        mask: usize,
    },
    /// A `FuzzyRowFilter` mask byte was neither 0 (fixed) nor 1 (any).
    #[error("FuzzyRowFilter mask bytes are 0 (fixed) or 1 (any byte), got {0}")]
    FuzzyMaskByte(u8),
    /// A `MultiRowRangeFilter` had no ranges.
    #[error("MultiRowRangeFilter needs at least one range")]
    EmptyRowRanges,
    /// A filter HBase 2.6 cannot run inside `SKIP`: `SkipFilter` never passes it the row
    /// key, and the region server fails with a `NullPointerException`.
    #[error(
        "HBase 2.6 cannot run {0} inside SKIP (SkipFilter never passes it the row key, and the region server \
         fails with a NullPointerException): use it outside SKIP"
    )]
    UnsupportedUnderSkip(&'static str),
    /// A `MultiRowRangeFilter` range whose start is after its stop.
    #[error("MultiRowRangeFilter range starts after it stops")]
    InvertedRowRange,
    /// A filter that decides on whole rows (HBase's `hasFilterRow()`), on a scan with
    /// `batch`: HBase refuses the combination, since a row split into parts cannot be
    /// judged as a whole.
    #[error(
        "{filter} decides on whole rows, which HBase refuses on a scan with batch ({batch} cells per result): \
         remove the batch setting or the filter"
    )]
    RowFilterWithBatch {
        /// HBase's class name of the row-level filter.
        filter: &'static str,
        /// The scan's batch.
        batch: i32,
    },
    /// A reversed scan reading a family that the filter does not need (HBase loads such
    /// families on demand, and refuses on-demand loading on reversed scans).
    #[error(
        "{filter} makes family {family:?} load on demand, which HBase refuses on a reversed scan: \
         scan forward, read only the filter's family, drop filter_if_missing, or (native RPC) \
         set load_column_families_on_demand(false)"
    )]
    ReversedOnDemand {
        /// HBase's class name of the filter that does not need the family.
        filter: &'static str,
        /// The family read on demand.
        family: Bytes,
    },
}

/// A server-side filter expression.
///
/// Construction is infallible and chainable; invalid arguments are reported by
/// [`Filter::validate`] / [`Filter::render`] (and by the read that carries it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Filter {
    pub(crate) node: Node,
}

impl Filter {
    pub(crate) fn new(node: Node) -> Self {
        Filter { node }
    }

    /// Parses HBase's filter language, e.g. `PrefixFilter('u#') AND KeyOnlyFilter()`.
    ///
    /// Every filter HBase's `ParseFilter` knows, the operators `AND`, `OR`, `SKIP`, `WHILE`
    /// with HBase's precedence, and parentheses. Arguments are separated by commas.
    pub fn parse(text: &str) -> Result<Filter, FilterParseError> {
        parse::parse(text.as_bytes())
    }

    /// [`Filter::parse`] for a filter string holding raw (not UTF-8) bytes in its quoted
    /// arguments.
    pub fn parse_bytes(text: &[u8]) -> Result<Filter, FilterParseError> {
        parse::parse(text)
    }

    /// `SingleColumnValueFilter(family, qualifier, op, comparator[, filterIfMissing, latestVersionOnly])`:
    /// rows whose column `family:qualifier` passes `op cmp`.
    ///
    /// The 6-argument form is emitted only when a flag differs from HBase's defaults.
    pub fn single_column_value(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        cmp: Comparator,
    ) -> SingleColumnValue {
        let (family, qualifier) = (family.into(), qualifier.into());
        SingleColumnValue {
            family,
            qualifier,
            op,
            cmp,
            filter_if_missing: false,
            latest_version_only: true,
            exclude: false,
        }
    }

    /// `SingleColumnValueExcludeFilter(...)`: like [`Filter::single_column_value`], and the
    /// tested column is left out of the returned rows.
    pub fn single_column_value_exclude(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        cmp: Comparator,
    ) -> SingleColumnValue {
        SingleColumnValue { exclude: true, ..Filter::single_column_value(family, qualifier, op, cmp) }
    }

    /// `PrefixFilter(prefix)`: rows whose key starts with `prefix`.
    pub fn prefix(prefix: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Quoted(QuotedKind::Prefix, prefix.into()))
    }

    /// `PageFilter(size)`: at most `size` rows per region server; `size` must be >= 0.
    pub fn page(size: i64) -> Filter {
        Filter::new(Node::Page(size))
    }

    /// `ColumnPrefixFilter(prefix)`: columns whose qualifier starts with `prefix`.
    pub fn column_prefix(prefix: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Quoted(QuotedKind::ColumnPrefix, prefix.into()))
    }

    /// `MultipleColumnPrefixFilter(p1, p2, ...)`; duplicates are dropped (HBase rejects them).
    ///
    /// With no prefixes at all, HBase lets every column through.
    pub fn multiple_column_prefix(prefixes: impl IntoIterator<Item = impl Into<Bytes>>) -> Filter {
        let mut out: Vec<Bytes> = Vec::new();
        for p in prefixes.into_iter().map(Into::into) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        Filter::new(Node::MultipleColumnPrefix(out))
    }

    /// `RowFilter(op, comparator)` on the row key.
    pub fn row(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare(CompareKind::Row, op, cmp))
    }

    /// `ValueFilter(op, comparator)` on cell values.
    pub fn value(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare(CompareKind::Value, op, cmp))
    }

    /// `QualifierFilter(op, comparator)` on column qualifiers.
    pub fn qualifier(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare(CompareKind::Qualifier, op, cmp))
    }

    /// `FamilyFilter(op, comparator)` on column families.
    pub fn family(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare(CompareKind::Family, op, cmp))
    }

    /// `ColumnValueFilter(family, qualifier, op, comparator)`: only the cells of
    /// `family:qualifier` whose value passes `op cmp` (other columns are not returned).
    pub fn column_value(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        cmp: Comparator,
    ) -> Filter {
        Filter::new(Node::ColumnValue(family.into(), qualifier.into(), op, cmp))
    }

    /// `DependentColumnFilter(family, qualifier[, dropDependentColumn[, op, comparator]])`:
    /// see [`DependentColumn`].
    pub fn dependent_column(family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> DependentColumn {
        DependentColumn {
            family: family.into(),
            qualifier: qualifier.into(),
            drop_dependent_column: false,
            value: None,
        }
    }

    /// `KeyOnlyFilter()`: strip values, return keys only.
    pub fn key_only() -> Filter {
        Filter::new(Node::KeyOnly(false))
    }

    /// `KeyOnlyFilter(true)`: each value is replaced by its length, a 4-byte big-endian int.
    pub fn key_only_with_lengths() -> Filter {
        Filter::new(Node::KeyOnly(true))
    }

    /// `FirstKeyOnlyFilter()`: only the first cell of each row.
    pub fn first_key_only() -> Filter {
        Filter::new(Node::FirstKeyOnly)
    }

    /// `TimestampsFilter(t1, t2, ...)`: only cells with these timestamps (each >= 0; none matches nothing).
    pub fn timestamps(ts: impl IntoIterator<Item = i64>) -> Filter {
        Filter::new(Node::Timestamps(ts.into_iter().collect()))
    }

    /// `ColumnRangeFilter(min, minInclusive, max, maxInclusive)`; `None` means unbounded.
    ///
    /// A `Some` bound must be non-empty, except an inclusive empty `min` (which equals `None`).
    pub fn column_range(min: Option<(Bytes, bool)>, max: Option<(Bytes, bool)>) -> Filter {
        let min = min.filter(|(b, inclusive)| !(b.is_empty() && *inclusive));
        Filter::new(Node::ColumnRange(min, max))
    }

    /// `ColumnCountGetFilter(limit)`: the first `limit` columns of a row (Get only); `limit` >= 0.
    pub fn column_count_get(limit: i32) -> Filter {
        Filter::new(Node::ColumnCountGet(limit))
    }

    /// `ColumnPaginationFilter(limit, offset)`: per row, `limit` columns after skipping
    /// the first `offset` (both >= 0).
    pub fn column_pagination(limit: i32, offset: i32) -> Filter {
        Filter::new(Node::ColumnPagination(limit, PageStart::Offset(offset)))
    }

    /// `ColumnPaginationFilter` by column: per row, `limit` columns starting at the first
    /// qualifier at or after `column_offset`. Not in the filter language (sent as protobuf).
    pub fn column_pagination_from(limit: i32, column_offset: impl Into<Bytes>) -> Filter {
        Filter::new(Node::ColumnPagination(limit, PageStart::Column(column_offset.into())))
    }

    /// `InclusiveStopFilter(stop_row)`: stop the scan after `stop_row`, including it.
    pub fn inclusive_stop(stop_row: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Quoted(QuotedKind::InclusiveStop, stop_row.into()))
    }

    /// `FuzzyRowFilter`: rows matching any of the `(key, mask)` pairs, where mask byte 0
    /// means "this byte must equal the key's" and 1 "any byte" (key and mask of equal
    /// length). Not in the filter language (sent as protobuf).
    pub fn fuzzy_row(keys: impl IntoIterator<Item = (impl Into<Bytes>, impl Into<Bytes>)>) -> Filter {
        Filter::new(Node::FuzzyRow(keys.into_iter().map(|(k, m)| (k.into(), m.into())).collect()))
    }

    /// `MultiRowRangeFilter`: rows in any of the ranges (HBase sorts and merges them).
    /// Not in the filter language (sent as protobuf).
    pub fn multi_row_range(ranges: impl IntoIterator<Item = RowRange>) -> Filter {
        Filter::new(Node::MultiRowRange(ranges.into_iter().collect()))
    }

    /// `RandomRowFilter(chance)`: each row passes with probability `chance` (0.0 to 1.0).
    /// Not in the filter language (sent as protobuf).
    pub fn random_row(chance: f32) -> Filter {
        Filter::new(Node::RandomRow(chance.to_bits()))
    }

    /// Escape hatch: a filter-language expression used verbatim (parenthesised when nested).
    ///
    /// Only checked for being non-blank when rendered; the server reports any other
    /// mistake. [`Filter::parse`] gives a typed filter instead, checked on the client.
    pub fn raw(text: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Raw(text.into()))
    }

    /// `SKIP inner`: drop a whole row if any of its cells fails `inner`.
    pub fn skip(inner: impl Into<Filter>) -> Filter {
        Filter::new(Node::Skip(Box::new(inner.into())))
    }

    /// `WHILE inner`: end the scan at the first cell that fails `inner`.
    pub fn while_match(inner: impl Into<Filter>) -> Filter {
        Filter::new(Node::While(Box::new(inner.into())))
    }

    /// `self AND other`; chains of `and` flatten into one `MUST_PASS_ALL` list.
    pub fn and(self, other: impl Into<Filter>) -> Filter {
        Filter::combine(ListOp::All, [self, other.into()])
    }

    /// `self OR other`; chains of `or` flatten into one `MUST_PASS_ONE` list.
    pub fn or(self, other: impl Into<Filter>) -> Filter {
        Filter::combine(ListOp::Any, [self, other.into()])
    }

    /// A `MUST_PASS_ALL` filter list (`A AND B AND ...`); must not be empty at render time.
    /// A list of one filter is that filter.
    pub fn all(filters: impl IntoIterator<Item = Filter>) -> Filter {
        Filter::combine(ListOp::All, filters)
    }

    /// A `MUST_PASS_ONE` filter list (`A OR B OR ...`); must not be empty at render time.
    /// A list of one filter is that filter.
    pub fn any(filters: impl IntoIterator<Item = Filter>) -> Filter {
        Filter::combine(ListOp::Any, filters)
    }

    fn combine(op: ListOp, filters: impl IntoIterator<Item = Filter>) -> Filter {
        let mut members = Vec::new();
        for f in filters {
            match f.node {
                // Same operator, non-empty: splice in (empty lists are kept so render() reports them).
                Node::List(inner_op, inner) if inner_op == op && !inner.is_empty() => members.extend(inner),
                node => members.push(Filter { node }),
            }
        }
        if members.len() == 1 {
            if let Some(only) = members.pop() {
                return only;
            }
        }
        Filter::new(Node::List(op, members))
    }

    /// Renders and validates the filter-language string for `TScan.filterString` /
    /// `TGet.filterString`; [`FilterError::NotInFilterLanguage`] for a filter that only
    /// protobuf can carry (see [`Filter::in_filter_language`]).
    pub fn render(&self) -> Result<Bytes, FilterError> {
        render::render(self)
    }

    /// Checks every argument as HBase's filter constructors would, whichever form the
    /// filter travels in (reads run this before sending).
    pub fn validate(&self) -> Result<(), FilterError> {
        check::check_tree(self)
    }

    /// Whether the filter can be written in HBase's filter language; reads send it as
    /// `filterString` when it can and as `filterBytes` otherwise.
    pub fn in_filter_language(&self) -> bool {
        check::in_language(self)
    }
}
