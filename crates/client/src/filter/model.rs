//! The filter model: comparison operators, comparators, the builders of the filters with
//! options, and the tree every [`Filter`] holds.

use std::fmt;

use bytes::Bytes;

use super::{Filter, FilterError};

/// Comparison operator of compare-style filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `=`
    Equal,
    /// `!=`
    NotEqual,
    /// `>=`
    GreaterOrEqual,
    /// `>`
    Greater,
}

impl CompareOp {
    /// Every operator, in HBase's `CompareType` order.
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Less,
        CompareOp::LessOrEqual,
        CompareOp::Equal,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Greater,
    ];

    /// The operator's symbol in the filter language.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Less => "<",
            CompareOp::LessOrEqual => "<=",
            CompareOp::Equal => "=",
            CompareOp::NotEqual => "!=",
            CompareOp::GreaterOrEqual => ">=",
            CompareOp::Greater => ">",
        }
    }
}

/// The operator's symbol in the filter language.
impl fmt::Display for CompareOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Bitwise operation of a [`Comparator::Bit`]: the cell matches when `value OP cell` has a
/// non-zero byte (lengths must be equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitwiseOp {
    /// `value & cell`
    And,
    /// `value | cell`
    Or,
    /// `value ^ cell`
    Xor,
}

/// Comparator of compare-style filters. The first five exist in the filter language
/// (`'type:value'`); the others travel only as a serialized protobuf filter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `binary:` — lexicographic byte comparison against the value.
    Binary(Bytes),
    /// `binaryprefix:` — compares only the first `value.len()` bytes of the cell.
    BinaryPrefix(Bytes),
    /// `regexstring:` — a Java regex found anywhere in the bytes (`.` matches newlines);
    /// only valid with `=` / `!=`.
    RegexString(String),
    /// `regexstringnocase:` — Java regex match, case-insensitive, `.` matching newlines;
    /// only valid with `=` / `!=`.
    RegexStringNoCase(String),
    /// `substring:` — case-insensitive substring match; only valid with `=` / `!=`.
    Substring(String),
    /// HBase's `LongComparator`: the cell is an 8-byte big-endian signed long compared as
    /// a number (a cell of another length fails the scan on the server). Protobuf only.
    Long(i64),
    /// HBase's `BitComparator` (see [`BitwiseOp`]); only `=` / `!=` make sense. Protobuf only.
    Bit(Bytes, BitwiseOp),
    /// HBase's `NullComparator`: a stored cell's value is never null, so `=` matches no
    /// cell and `!=` every cell (with `single_column_value`, `=` keeps the rows lacking
    /// the column). Protobuf only.
    Null,
    /// HBase's `BinaryComponentComparator`: compares `value` with the cell's bytes at
    /// `offset..offset + value.len()`. Protobuf only.
    BinaryComponent {
        /// The bytes compared.
        value: Bytes,
        /// Where in the cell they are compared.
        offset: u32,
    },
}

impl Comparator {
    /// A `binary:` comparator.
    pub fn binary(value: impl Into<Bytes>) -> Self {
        Comparator::Binary(value.into())
    }

    /// A `binaryprefix:` comparator.
    pub fn binary_prefix(value: impl Into<Bytes>) -> Self {
        Comparator::BinaryPrefix(value.into())
    }

    /// A `regexstring:` comparator (Java regex syntax, checked by the server).
    pub fn regex_string(pattern: impl Into<String>) -> Self {
        Comparator::RegexString(pattern.into())
    }

    /// A `regexstringnocase:` comparator (case-insensitive, `.` matches newlines).
    pub fn regex_string_no_case(pattern: impl Into<String>) -> Self {
        Comparator::RegexStringNoCase(pattern.into())
    }

    /// A `substring:` comparator (the server lowercases both sides).
    pub fn substring(needle: impl Into<String>) -> Self {
        Comparator::Substring(needle.into())
    }

    /// A `regexstring:` comparator from raw bytes, which must be valid UTF-8.
    pub fn regex_string_utf8(pattern: impl AsRef<[u8]>) -> Result<Self, FilterError> {
        text(pattern.as_ref(), "regexstring").map(Comparator::RegexString)
    }

    /// A `substring:` comparator from raw bytes, which must be valid UTF-8.
    pub fn substring_utf8(needle: impl AsRef<[u8]>) -> Result<Self, FilterError> {
        text(needle.as_ref(), "substring").map(Comparator::Substring)
    }

    /// A `LongComparator` (protobuf only).
    pub fn long(value: i64) -> Self {
        Comparator::Long(value)
    }

    /// A `BitComparator` (protobuf only).
    pub fn bit(value: impl Into<Bytes>, op: BitwiseOp) -> Self {
        Comparator::Bit(value.into(), op)
    }

    /// A `NullComparator` (protobuf only).
    pub fn null() -> Self {
        Comparator::Null
    }

    /// A `BinaryComponentComparator` (protobuf only).
    pub fn binary_component(value: impl Into<Bytes>, offset: u32) -> Self {
        Comparator::BinaryComponent { value: value.into(), offset }
    }

    /// The comparator's name: its type in the filter language, else HBase's class name.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Comparator::Binary(_) => "binary",
            Comparator::BinaryPrefix(_) => "binaryprefix",
            Comparator::RegexString(_) => "regexstring",
            Comparator::RegexStringNoCase(_) => "regexstringnocase",
            Comparator::Substring(_) => "substring",
            Comparator::Long(_) => "LongComparator",
            Comparator::Bit(..) => "BitComparator",
            Comparator::Null => "NullComparator",
            Comparator::BinaryComponent { .. } => "BinaryComponentComparator",
        }
    }

    /// The value written after `type:` in the filter language; `None` outside it.
    pub(crate) fn language_value(&self) -> Option<&[u8]> {
        match self {
            Comparator::Binary(b) | Comparator::BinaryPrefix(b) => Some(b),
            Comparator::RegexString(s) | Comparator::RegexStringNoCase(s) | Comparator::Substring(s) => {
                Some(s.as_bytes())
            }
            Comparator::Long(_) | Comparator::Bit(..) | Comparator::Null | Comparator::BinaryComponent { .. } => None,
        }
    }

    /// Whether HBase's filter-language factories restrict this comparator to `=` / `!=`.
    pub(crate) fn equality_only(&self) -> bool {
        match self {
            Comparator::RegexString(_) | Comparator::RegexStringNoCase(_) | Comparator::Substring(_) => true,
            Comparator::Binary(_)
            | Comparator::BinaryPrefix(_)
            | Comparator::Long(_)
            | Comparator::Bit(..)
            | Comparator::Null
            | Comparator::BinaryComponent { .. } => false,
        }
    }
}

pub(crate) fn text(bytes: &[u8], comparator: &'static str) -> Result<String, FilterError> {
    std::str::from_utf8(bytes).map(str::to_owned).map_err(|e| FilterError::InvalidUtf8(comparator, e))
}

/// Builder for `SingleColumnValueFilter` and `SingleColumnValueExcludeFilter`; convert it
/// with `.into()` / [`SingleColumnValue::build`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SingleColumnValue {
    pub(crate) family: Bytes,
    pub(crate) qualifier: Bytes,
    pub(crate) op: CompareOp,
    pub(crate) cmp: Comparator,
    pub(crate) filter_if_missing: bool,
    pub(crate) latest_version_only: bool,
    /// The `Exclude` variant: the tested column is left out of the returned row.
    pub(crate) exclude: bool,
}

impl SingleColumnValue {
    /// Drop rows that lack the column entirely (HBase default: `false`, such rows pass).
    pub fn filter_if_missing(mut self, yes: bool) -> Self {
        self.filter_if_missing = yes;
        self
    }

    /// Test only the newest version of the column (HBase default: `true`).
    pub fn latest_version_only(mut self, yes: bool) -> Self {
        self.latest_version_only = yes;
        self
    }

    /// Finish the builder.
    pub fn build(self) -> Filter {
        Filter::new(Node::SingleColumnValue(self))
    }

    pub(crate) fn class_name(&self) -> &'static str {
        if self.exclude {
            "SingleColumnValueExcludeFilter"
        } else {
            "SingleColumnValueFilter"
        }
    }
}

impl From<SingleColumnValue> for Filter {
    fn from(scv: SingleColumnValue) -> Self {
        scv.build()
    }
}

/// Builder for `DependentColumnFilter`; convert it with `.into()` / [`DependentColumn::build`].
///
/// Returns only the cells whose timestamp equals that of the reference column
/// `family:qualifier` in the same row (optionally only where the reference cell's value
/// passes [`DependentColumn::value`]); rows without the reference column return nothing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DependentColumn {
    pub(crate) family: Bytes,
    pub(crate) qualifier: Bytes,
    pub(crate) drop_dependent_column: bool,
    pub(crate) value: Option<(CompareOp, Comparator)>,
}

impl DependentColumn {
    /// Leave the reference column itself out of the result (default `false`).
    pub fn drop_dependent_column(mut self, yes: bool) -> Self {
        self.drop_dependent_column = yes;
        self
    }

    /// Also require the reference cell's value to pass `op cmp`.
    pub fn value(mut self, op: CompareOp, cmp: Comparator) -> Self {
        self.value = Some((op, cmp));
        self
    }

    /// Finish the builder.
    pub fn build(self) -> Filter {
        Filter::new(Node::DependentColumn(self))
    }
}

impl From<DependentColumn> for Filter {
    fn from(d: DependentColumn) -> Self {
        d.build()
    }
}

/// One range of a `MultiRowRangeFilter`; an empty `start` or `stop` is unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RowRange {
    pub(crate) start: Bytes,
    pub(crate) start_inclusive: bool,
    pub(crate) stop: Bytes,
    pub(crate) stop_inclusive: bool,
}

impl RowRange {
    /// The rows between `start` and `stop`, each bound inclusive or not (empty: unbounded).
    pub fn new(start: impl Into<Bytes>, start_inclusive: bool, stop: impl Into<Bytes>, stop_inclusive: bool) -> Self {
        RowRange { start: start.into(), start_inclusive, stop: stop.into(), stop_inclusive }
    }
}

/// The filters that take one quoted byte string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum QuotedKind {
    Prefix,
    ColumnPrefix,
    InclusiveStop,
}

impl QuotedKind {
    pub(crate) fn class_name(self) -> &'static str {
        match self {
            QuotedKind::Prefix => "PrefixFilter",
            QuotedKind::ColumnPrefix => "ColumnPrefixFilter",
            QuotedKind::InclusiveStop => "InclusiveStopFilter",
        }
    }
}

/// The `CompareFilter`s: an operator and a comparator applied to one part of each cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CompareKind {
    Row,
    Value,
    Qualifier,
    Family,
}

impl CompareKind {
    pub(crate) fn class_name(self) -> &'static str {
        match self {
            CompareKind::Row => "RowFilter",
            CompareKind::Value => "ValueFilter",
            CompareKind::Qualifier => "QualifierFilter",
            CompareKind::Family => "FamilyFilter",
        }
    }
}

/// Where a `ColumnPaginationFilter` page starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PageStart {
    /// After this many columns of the row.
    Offset(i32),
    /// At the first column whose qualifier is at or after this one (protobuf only).
    Column(Bytes),
}

/// How the members of a filter list combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ListOp {
    /// `AND`, HBase's `MUST_PASS_ALL`.
    All,
    /// `OR`, HBase's `MUST_PASS_ONE`.
    Any,
}

impl ListOp {
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            ListOp::All => " AND ",
            ListOp::Any => " OR ",
        }
    }
}

/// A column range bound: the qualifier and whether it is included.
pub(crate) type Bound = Option<(Bytes, bool)>;

/// The tree behind a [`Filter`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    SingleColumnValue(SingleColumnValue),
    Quoted(QuotedKind, Bytes),
    Page(i64),
    MultipleColumnPrefix(Vec<Bytes>),
    Compare(CompareKind, CompareOp, Comparator),
    /// `KeyOnlyFilter`; `true`: each value is replaced by its length (4 bytes).
    KeyOnly(bool),
    FirstKeyOnly,
    Timestamps(Vec<i64>),
    ColumnRange(Bound, Bound),
    ColumnCountGet(i32),
    ColumnPagination(i32, PageStart),
    DependentColumn(DependentColumn),
    /// `ColumnValueFilter(family, qualifier, op, comparator)`.
    ColumnValue(Bytes, Bytes, CompareOp, Comparator),
    /// `FuzzyRowFilter`: (key, mask) pairs, mask byte 0 = fixed, 1 = any.
    FuzzyRow(Vec<(Bytes, Bytes)>),
    MultiRowRange(Vec<RowRange>),
    /// `RandomRowFilter`; the chance's `f32` bits (so that the tree stays `Eq`).
    RandomRow(u32),
    Raw(Bytes),
    List(ListOp, Vec<Filter>),
    Skip(Box<Filter>),
    While(Box<Filter>),
}
