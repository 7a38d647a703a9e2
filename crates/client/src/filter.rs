//! Typed builder for HBase's filter language, the string sent in `TScan.filterString` /
//! `TGet.filterString` and parsed server-side by `org.apache.hadoop.hbase.filter.ParseFilter`.
//!
//! ```
//! use basalt::filter::{CompareOp, Comparator, Filter};
//!
//! let active = Filter::single_column_value("d", "state", CompareOp::Equal, Comparator::binary("on"));
//! let f = Filter::prefix("u#").and(active).or(Filter::row(CompareOp::Equal, Comparator::binary("root")));
//! let want = "(PrefixFilter('u#') AND SingleColumnValueFilter('d', 'state', =, 'binary:on')) \
//!     OR RowFilter(=, 'binary:root')";
//! assert_eq!(f.render()?, want.as_bytes());
//! # Ok::<(), basalt::filter::FilterError>(())
//! ```
//!
//! Builders never fail; all validation happens in [`Filter::render`], which returns a [`FilterError`]
//! for arguments the server would reject (or silently misinterpret). Byte-string arguments are
//! written as raw bytes between single quotes with every `'` (0x27) doubled, so arbitrary binary
//! values (not only UTF-8) reach the server unchanged.

use std::fmt;

use bytes::Bytes;

/// Errors reported when a filter cannot be rendered into a valid filter string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// A `regexstring`/`substring` comparator (named by the first field) was given non-UTF-8 bytes.
    #[error("{0} comparator requires UTF-8 text: {1}")]
    InvalidUtf8(&'static str, std::str::Utf8Error),
    /// A `regexstring`/`substring` comparator was combined with an operator other than `=`/`!=`.
    #[error("{0} comparator only supports = and != (got {1})")]
    UnsupportedCompareOp(&'static str, CompareOp),
    /// `PageFilter` size was zero or negative.
    #[error("PageFilter size must be > 0 (got {0})")]
    InvalidPageSize(i64),
    /// `TimestampsFilter` was given a negative timestamp.
    #[error("TimestampsFilter timestamps must be >= 0 (got {0})")]
    NegativeTimestamp(i64),
    /// `ColumnCountGetFilter` limit was negative.
    #[error("ColumnCountGetFilter limit must be >= 0 (got {0})")]
    NegativeColumnCount(i32),
    /// A `ColumnRangeFilter` bound (`min`/`max`) was empty, which HBase would read as "unbounded".
    #[error("ColumnRangeFilter {0} bound is empty; HBase treats an empty bound as unbounded (use None)")]
    EmptyColumnRangeBound(&'static str),
    /// A filter list (`AND`/`OR`) had no members.
    #[error("filter list is empty")]
    EmptyFilterList,
    /// A raw filter string was empty or only whitespace.
    #[error("raw filter string is empty")]
    EmptyRaw,
}

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

/// The operator's symbol in the filter language.
impl fmt::Display for CompareOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CompareOp::Less => "<",
            CompareOp::LessOrEqual => "<=",
            CompareOp::Equal => "=",
            CompareOp::NotEqual => "!=",
            CompareOp::GreaterOrEqual => ">=",
            CompareOp::Greater => ">",
        })
    }
}

/// Comparator of compare-style filters, written as `'type:value'`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `binary:` — lexicographic byte comparison against the value.
    Binary(Bytes),
    /// `binaryprefix:` — compares only the first `value.len()` bytes of the cell.
    BinaryPrefix(Bytes),
    /// `regexstring:` — Java regex match; only valid with `=` / `!=`.
    RegexString(String),
    /// `substring:` — case-insensitive substring match; only valid with `=` / `!=`.
    Substring(String),
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

    fn type_name(&self) -> &'static str {
        match self {
            Comparator::Binary(_) => "binary",
            Comparator::BinaryPrefix(_) => "binaryprefix",
            Comparator::RegexString(_) => "regexstring",
            Comparator::Substring(_) => "substring",
        }
    }

    fn value(&self) -> &[u8] {
        match self {
            Comparator::Binary(b) | Comparator::BinaryPrefix(b) => b,
            Comparator::RegexString(s) | Comparator::Substring(s) => s.as_bytes(),
        }
    }
}

fn text(bytes: &[u8], comparator: &'static str) -> Result<String, FilterError> {
    std::str::from_utf8(bytes).map(str::to_owned).map_err(|e| FilterError::InvalidUtf8(comparator, e))
}

/// Builder for `SingleColumnValueFilter`; convert it with `.into()` / [`SingleColumnValue::build`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SingleColumnValue {
    family: Bytes,
    qualifier: Bytes,
    op: CompareOp,
    cmp: Comparator,
    filter_if_missing: bool,
    latest_version_only: bool,
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
        Filter { node: Node::SingleColumnValue(self) }
    }
}

impl From<SingleColumnValue> for Filter {
    fn from(scv: SingleColumnValue) -> Self {
        scv.build()
    }
}

const AND: &str = " AND ";
const OR: &str = " OR ";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    SingleColumnValue(SingleColumnValue),
    /// Filters taking exactly one quoted byte string (`PrefixFilter`, `ColumnPrefixFilter`, ...).
    Quoted(&'static str, Bytes),
    Page(i64),
    MultipleColumnPrefix(Vec<Bytes>),
    /// `RowFilter`, `ValueFilter`, `QualifierFilter`, `FamilyFilter`.
    Compare(&'static str, CompareOp, Comparator),
    /// Filters without arguments (`KeyOnlyFilter`, `FirstKeyOnlyFilter`).
    NoArgs(&'static str),
    Timestamps(Vec<i64>),
    ColumnRange(Option<(Bytes, bool)>, Option<(Bytes, bool)>),
    ColumnCountGet(i32),
    Raw(Bytes),
    /// Filter list; the separator is [`AND`] or [`OR`].
    List(&'static str, Vec<Filter>),
    /// `SKIP` / `WHILE` wrapper.
    Unary(&'static str, Box<Filter>),
}

/// A server-side filter expression; turn it into the filter string with [`Filter::render`].
///
/// Construction is infallible and chainable; invalid arguments are reported by `render()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    node: Node,
}

impl Filter {
    fn new(node: Node) -> Self {
        Filter { node }
    }

    /// `SingleColumnValueFilter(family, qualifier, op, comparator[, filterIfMissing, latestVersionOnly])`.
    ///
    /// The 6-argument form is emitted only when a flag differs from HBase's defaults.
    pub fn single_column_value(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        cmp: Comparator,
    ) -> SingleColumnValue {
        let (family, qualifier) = (family.into(), qualifier.into());
        SingleColumnValue { family, qualifier, op, cmp, filter_if_missing: false, latest_version_only: true }
    }

    /// `PrefixFilter(prefix)`: rows whose key starts with `prefix`.
    pub fn prefix(prefix: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Quoted("PrefixFilter", prefix.into()))
    }

    /// `PageFilter(size)`: at most `size` rows per region server; `size` must be > 0.
    pub fn page(size: i64) -> Filter {
        Filter::new(Node::Page(size))
    }

    /// `ColumnPrefixFilter(prefix)`: columns whose qualifier starts with `prefix`.
    pub fn column_prefix(prefix: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Quoted("ColumnPrefixFilter", prefix.into()))
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
        Filter::new(Node::Compare("RowFilter", op, cmp))
    }

    /// `ValueFilter(op, comparator)` on cell values.
    pub fn value(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare("ValueFilter", op, cmp))
    }

    /// `QualifierFilter(op, comparator)` on column qualifiers.
    pub fn qualifier(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare("QualifierFilter", op, cmp))
    }

    /// `FamilyFilter(op, comparator)` on column families.
    pub fn family(op: CompareOp, cmp: Comparator) -> Filter {
        Filter::new(Node::Compare("FamilyFilter", op, cmp))
    }

    /// `KeyOnlyFilter()`: strip values, return keys only.
    pub fn key_only() -> Filter {
        Filter::new(Node::NoArgs("KeyOnlyFilter"))
    }

    /// `FirstKeyOnlyFilter()`: only the first cell of each row.
    pub fn first_key_only() -> Filter {
        Filter::new(Node::NoArgs("FirstKeyOnlyFilter"))
    }

    /// `TimestampsFilter(t1, t2, ...)`: only cells with these timestamps (each >= 0; none matches nothing).
    pub fn timestamps(ts: impl IntoIterator<Item = i64>) -> Filter {
        Filter::new(Node::Timestamps(ts.into_iter().collect()))
    }

    /// `ColumnRangeFilter(min, minInclusive, max, maxInclusive)`; `None` means unbounded.
    ///
    /// A `Some` bound must be non-empty, except an inclusive empty `min` (which equals `None`).
    pub fn column_range(min: Option<(Bytes, bool)>, max: Option<(Bytes, bool)>) -> Filter {
        Filter::new(Node::ColumnRange(min, max))
    }

    /// `ColumnCountGetFilter(limit)`: the first `limit` columns of a row (Get only); `limit` >= 0.
    pub fn column_count_get(limit: i32) -> Filter {
        Filter::new(Node::ColumnCountGet(limit))
    }

    /// `InclusiveStopFilter(stop_row)`: stop the scan after `stop_row`, including it.
    pub fn inclusive_stop(stop_row: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Quoted("InclusiveStopFilter", stop_row.into()))
    }

    /// Escape hatch: a filter-language expression used verbatim (parenthesised when nested).
    ///
    /// Only checked for being non-blank; the server reports any other mistake.
    pub fn raw(text: impl Into<Bytes>) -> Filter {
        Filter::new(Node::Raw(text.into()))
    }

    /// `SKIP inner`: drop a whole row if any of its cells fails `inner`.
    pub fn skip(inner: impl Into<Filter>) -> Filter {
        Filter::new(Node::Unary("SKIP ", Box::new(inner.into())))
    }

    /// `WHILE inner`: end the scan at the first cell that fails `inner`.
    pub fn while_match(inner: impl Into<Filter>) -> Filter {
        Filter::new(Node::Unary("WHILE ", Box::new(inner.into())))
    }

    /// `self AND other`; chains of `and` flatten into one `MUST_PASS_ALL` list.
    pub fn and(self, other: impl Into<Filter>) -> Filter {
        Filter::combine(AND, [self, other.into()])
    }

    /// `self OR other`; chains of `or` flatten into one `MUST_PASS_ONE` list.
    pub fn or(self, other: impl Into<Filter>) -> Filter {
        Filter::combine(OR, [self, other.into()])
    }

    /// A `MUST_PASS_ALL` filter list (`A AND B AND ...`); must not be empty at render time.
    pub fn all(filters: impl IntoIterator<Item = Filter>) -> Filter {
        Filter::combine(AND, filters)
    }

    /// A `MUST_PASS_ONE` filter list (`A OR B OR ...`); must not be empty at render time.
    pub fn any(filters: impl IntoIterator<Item = Filter>) -> Filter {
        Filter::combine(OR, filters)
    }

    fn combine(op: &'static str, filters: impl IntoIterator<Item = Filter>) -> Filter {
        let mut members = Vec::new();
        for f in filters {
            match f.node {
                // Same operator, non-empty: splice in (empty lists are kept so render() reports them).
                Node::List(inner_op, inner) if inner_op == op && !inner.is_empty() => members.extend(inner),
                node => members.push(Filter { node }),
            }
        }
        Filter::new(Node::List(op, members))
    }

    /// Renders and validates the filter string for `TScan.filterString` / `TGet.filterString`.
    pub fn render(&self) -> Result<Bytes, FilterError> {
        let mut out = Vec::new();
        self.write(&mut out)?;
        Ok(Bytes::from(out))
    }

    /// Whether this filter must be parenthesised as an operand of AND/OR/SKIP/WHILE.
    ///
    /// HBase's parser mishandles mixed operators inside one parenthesised group (its `)` handling
    /// pops one operator too many), so every compound operand is wrapped: each group then holds a
    /// single operator kind.
    fn needs_parens(&self) -> bool {
        match &self.node {
            Node::List(_, members) => members.len() != 1,
            Node::Raw(_) | Node::Unary(..) => true,
            _ => false,
        }
    }

    fn write_operand(&self, out: &mut Vec<u8>) -> Result<(), FilterError> {
        if !self.needs_parens() {
            return self.write(out);
        }
        out.push(b'(');
        self.write(out)?;
        out.push(b')');
        Ok(())
    }

    fn write(&self, out: &mut Vec<u8>) -> Result<(), FilterError> {
        match &self.node {
            Node::SingleColumnValue(s) => {
                check_comparator(s.op, &s.cmp)?;
                let mut args = vec![Arg::Quoted(&s.family), Arg::Quoted(&s.qualifier), Arg::Op(s.op), Arg::Cmp(&s.cmp)];
                if s.filter_if_missing || !s.latest_version_only {
                    args.extend([Arg::Bool(s.filter_if_missing), Arg::Bool(s.latest_version_only)]);
                }
                call(out, "SingleColumnValueFilter", &args);
            }
            Node::Quoted(name, value) => call(out, name, &[Arg::Quoted(value)]),
            Node::Page(size) if *size <= 0 => return Err(FilterError::InvalidPageSize(*size)),
            Node::Page(size) => call(out, "PageFilter", &[Arg::Int(*size)]),
            Node::MultipleColumnPrefix(prefixes) => {
                let args: Vec<_> = prefixes.iter().map(|p| Arg::Quoted(p)).collect();
                call(out, "MultipleColumnPrefixFilter", &args);
            }
            Node::Compare(name, op, cmp) => {
                check_comparator(*op, cmp)?;
                call(out, name, &[Arg::Op(*op), Arg::Cmp(cmp)]);
            }
            Node::NoArgs(name) => call(out, name, &[]),
            Node::Timestamps(ts) => match ts.iter().find(|t| **t < 0) {
                Some(bad) => return Err(FilterError::NegativeTimestamp(*bad)),
                None => call(out, "TimestampsFilter", &ts.iter().map(|t| Arg::Int(*t)).collect::<Vec<_>>()),
            },
            Node::ColumnRange(min, max) => {
                // HBase maps an empty bound to "unbounded", which would silently change the meaning.
                if matches!(min, Some((b, false)) if b.is_empty()) {
                    return Err(FilterError::EmptyColumnRangeBound("min"));
                }
                if matches!(max, Some((b, _)) if b.is_empty()) {
                    return Err(FilterError::EmptyColumnRangeBound("max"));
                }
                let (min, min_incl) = min.as_ref().map_or((&[][..], true), |(b, i)| (&b[..], *i));
                let (max, max_incl) = max.as_ref().map_or((&[][..], false), |(b, i)| (&b[..], *i));
                let args = [Arg::Quoted(min), Arg::Bool(min_incl), Arg::Quoted(max), Arg::Bool(max_incl)];
                call(out, "ColumnRangeFilter", &args);
            }
            Node::ColumnCountGet(limit) if *limit < 0 => return Err(FilterError::NegativeColumnCount(*limit)),
            Node::ColumnCountGet(limit) => call(out, "ColumnCountGetFilter", &[Arg::Int(i64::from(*limit))]),
            Node::Raw(text) if text.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) => {
                return Err(FilterError::EmptyRaw)
            }
            Node::Raw(text) => out.extend_from_slice(text),
            Node::List(_, members) if members.is_empty() => return Err(FilterError::EmptyFilterList),
            // A single-member list renders as just that member (there is no 1-element list syntax).
            Node::List(sep, members) => {
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(sep.as_bytes());
                    }
                    m.write_operand(out)?;
                }
            }
            Node::Unary(keyword, inner) => {
                out.extend_from_slice(keyword.as_bytes());
                inner.write_operand(out)?;
            }
        }
        Ok(())
    }
}

fn check_comparator(op: CompareOp, cmp: &Comparator) -> Result<(), FilterError> {
    // CompareFilter/SingleColumnValueFilter.createFilterFromArguments reject anything else.
    match cmp {
        Comparator::RegexString(_) | Comparator::Substring(_)
            if !matches!(op, CompareOp::Equal | CompareOp::NotEqual) =>
        {
            Err(FilterError::UnsupportedCompareOp(cmp.type_name(), op))
        }
        _ => Ok(()),
    }
}

/// One argument of a simple filter expression.
enum Arg<'a> {
    Quoted(&'a [u8]),
    Cmp(&'a Comparator),
    Op(CompareOp),
    Bool(bool),
    Int(i64),
}

/// Writes `Name(arg, arg, ...)`.
fn call(out: &mut Vec<u8>, name: &str, args: &[Arg<'_>]) {
    out.extend_from_slice(name.as_bytes());
    out.push(b'(');
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        match arg {
            Arg::Quoted(value) => quote(out, "", value),
            Arg::Cmp(cmp) => quote(out, cmp.type_name(), cmp.value()),
            Arg::Op(op) => out.extend_from_slice(op.to_string().as_bytes()),
            Arg::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Arg::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
        }
    }
    out.push(b')');
}

/// Writes `'value'` (or `'type:value'`): raw bytes, each `'` doubled, nothing else escaped.
fn quote(out: &mut Vec<u8>, comparator_type: &str, value: &[u8]) {
    out.push(b'\'');
    if !comparator_type.is_empty() {
        out.extend_from_slice(comparator_type.as_bytes());
        out.push(b':');
    }
    for &b in value {
        if b == b'\'' {
            out.push(b'\'');
        }
        out.push(b);
    }
    out.push(b'\'');
}

/// Human-readable rendering: valid UTF-8 as text, other bytes, ASCII controls and `\` escaped
/// (`\xNN`, `\\`). Invalid filters display as `<invalid filter: ...>`.
impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rendered = match self.render() {
            Ok(r) => r,
            Err(e) => return write!(f, "<invalid filter: {e}>"),
        };
        for chunk in rendered.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\\' => f.write_str("\\\\")?,
                    c if c.is_ascii_control() => write!(f, "\\x{:02X}", u32::from(c))?,
                    c => fmt::Write::write_char(f, c)?,
                }
            }
            for b in chunk.invalid() {
                write!(f, "\\x{b:02X}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(f: impl Into<Filter>) -> Vec<u8> {
        f.into().render().expect("valid filter").to_vec()
    }

    fn check(cases: Vec<(Filter, &[u8])>) {
        for (f, want) in cases {
            assert_eq!(r(f), want, "want {}", String::from_utf8_lossy(want));
        }
    }

    fn bin(v: &'static str) -> Comparator {
        Comparator::binary(v)
    }

    /// Port of HBase 2.x ParseFilter.extractFilterSimpleExpression + getFilterArguments +
    /// createUnescapdArgument: returns (expression length, filter name, unquoted arguments).
    fn hbase_parse_simple(s: &[u8]) -> (usize, Vec<u8>, Vec<Vec<u8>>) {
        let unescaped = |a: &[u8], i: usize| i == a.len() - 1 || a[i + 1] != b'\'';
        let (mut quotes, mut i, mut end) = (0, 0, None);
        while i < s.len() {
            if s[i] == b'\'' {
                if unescaped(s, i) {
                    quotes += 1;
                } else {
                    i += 1;
                }
            }
            if s[i] == b')' && quotes % 2 == 0 {
                end = Some(i);
                break;
            }
            i += 1;
        }
        let expr = &s[..=end.expect("incorrect filter string")];
        let lparen = expr.iter().position(|&b| b == b'(').expect("argument list");
        let (mut args, mut i) = (Vec::new(), lparen + 1);
        while i < expr.len() {
            if matches!(expr[i], b' ' | b',' | b')') {
                i += 1;
            } else if expr[i] == b'\'' {
                let mut j = i + 1;
                while expr[j] != b'\'' || !unescaped(expr, j) {
                    j += if expr[j] == b'\'' { 2 } else { 1 };
                }
                let (mut arg, mut k) = (Vec::new(), i + 1);
                while k < j {
                    arg.push(expr[k]);
                    k += if expr[k] == b'\'' && k != j - 1 && expr[k + 1] == b'\'' { 2 } else { 1 };
                }
                args.push(arg);
                i = j + 1;
            } else {
                let j = i + expr[i..].iter().position(|b| matches!(b, b' ' | b',' | b')')).expect("arg end");
                args.push(expr[i..j].to_vec());
                i = j;
            }
        }
        (expr.len(), expr[..lparen].to_vec(), args)
    }

    #[test]
    fn single_column_value_four_and_six_args() {
        let f = Filter::single_column_value("cf", "q", CompareOp::GreaterOrEqual, bin("10"));
        check(vec![
            (f.clone().into(), b"SingleColumnValueFilter('cf', 'q', >=, 'binary:10')"),
            (
                f.clone().filter_if_missing(true).into(),
                b"SingleColumnValueFilter('cf', 'q', >=, 'binary:10', true, true)",
            ),
            (
                f.latest_version_only(false).build(),
                b"SingleColumnValueFilter('cf', 'q', >=, 'binary:10', false, false)",
            ),
        ]);
    }

    #[test]
    fn one_argument_and_no_argument_filters() {
        check(vec![
            (Filter::prefix("row"), b"PrefixFilter('row')"),
            (Filter::prefix("it's"), b"PrefixFilter('it''s')"),
            (Filter::prefix("'"), b"PrefixFilter('''')"),
            (Filter::prefix(""), b"PrefixFilter('')"),
            (Filter::prefix("')"), b"PrefixFilter(''')')"),
            (Filter::column_prefix("col"), b"ColumnPrefixFilter('col')"),
            (Filter::inclusive_stop("z"), b"InclusiveStopFilter('z')"),
            (Filter::page(25), b"PageFilter(25)"),
            (Filter::page(i64::MAX), b"PageFilter(9223372036854775807)"),
            (Filter::column_count_get(0), b"ColumnCountGetFilter(0)"),
            (Filter::key_only(), b"KeyOnlyFilter()"),
            (Filter::first_key_only(), b"FirstKeyOnlyFilter()"),
            (Filter::raw("KeyOnlyFilter()"), b"KeyOnlyFilter()"),
        ]);
    }

    #[test]
    fn list_argument_filters() {
        let (a, c) = (Some((Bytes::from_static(b"a"), true)), Some((Bytes::from_static(b"c"), false)));
        check(vec![
            (Filter::multiple_column_prefix(["a", "b'", "a"]), b"MultipleColumnPrefixFilter('a', 'b''')"),
            (Filter::timestamps([5, 0, 1_700_000_000_000]), b"TimestampsFilter(5, 0, 1700000000000)"),
            (Filter::column_range(a.clone(), c.clone()), b"ColumnRangeFilter('a', true, 'c', false)"),
            (Filter::column_range(None, c), b"ColumnRangeFilter('', true, 'c', false)"),
            (Filter::column_range(a, None), b"ColumnRangeFilter('a', true, '', false)"),
            (Filter::column_range(Some((Bytes::new(), true)), None), b"ColumnRangeFilter('', true, '', false)"),
        ]);
    }

    #[test]
    fn compare_filters_and_comparators() {
        check(vec![
            (Filter::row(CompareOp::Less, bin("k")), b"RowFilter(<, 'binary:k')"),
            (Filter::row(CompareOp::Greater, bin("a:b")), b"RowFilter(>, 'binary:a:b')"),
            (Filter::row(CompareOp::GreaterOrEqual, bin("")), b"RowFilter(>=, 'binary:')"),
            (
                Filter::value(CompareOp::LessOrEqual, Comparator::binary_prefix("p")),
                b"ValueFilter(<=, 'binaryprefix:p')",
            ),
            (
                Filter::qualifier(CompareOp::Equal, Comparator::regex_string("^a.*'x")),
                b"QualifierFilter(=, 'regexstring:^a.*''x')",
            ),
            (Filter::family(CompareOp::NotEqual, Comparator::substring("abc")), b"FamilyFilter(!=, 'substring:abc')"),
        ]);
    }

    #[test]
    fn all_256_bytes_render_raw_and_round_trip_through_hbase_parser() {
        let all: Vec<u8> = (0..=255u8).collect();
        let mut expected = b"PrefixFilter('".to_vec();
        for &b in &all {
            expected.extend_from_slice(if b == b'\'' { b"''" } else { std::slice::from_ref(&b) });
        }
        expected.extend_from_slice(b"')");
        let out = r(Filter::prefix(all.clone()));
        assert_eq!(out, expected);
        assert_eq!(hbase_parse_simple(&out), (out.len(), b"PrefixFilter".to_vec(), vec![all.clone()]));

        // Awkward quote/paren/comma placements, including at argument edges, in every argument slot.
        let tricky: [&[u8]; 10] = [b"", b"'", b"''", b"')", b"'), '", b"(", b")", b"x'", b"a' AND 'b", &all];
        for v in tricky {
            let f =
                Filter::single_column_value(v.to_vec(), v.to_vec(), CompareOp::Equal, Comparator::binary(v.to_vec()));
            let out = r(f.filter_if_missing(true));
            let (len, name, args) = hbase_parse_simple(&out);
            assert_eq!((len, name), (out.len(), b"SingleColumnValueFilter".to_vec()));
            let cmp = [b"binary:".as_slice(), v].concat();
            assert_eq!(args, vec![v.to_vec(), v.to_vec(), b"=".to_vec(), cmp, b"true".to_vec(), b"true".to_vec()]);
        }
    }

    #[test]
    fn nesting_and_flattening() {
        let (a, b, c) = (Filter::prefix("a"), Filter::key_only(), Filter::page(1));
        let skip = Filter::skip(Filter::value(CompareOp::NotEqual, bin("0")));
        check(vec![
            (a.clone().and(b.clone()).or(c.clone()), b"(PrefixFilter('a') AND KeyOnlyFilter()) OR PageFilter(1)"),
            (a.clone().and(b.clone()).and(c.clone()), b"PrefixFilter('a') AND KeyOnlyFilter() AND PageFilter(1)"),
            (a.clone().and(b.clone().or(c.clone())), b"PrefixFilter('a') AND (KeyOnlyFilter() OR PageFilter(1))"),
            (
                Filter::any([Filter::all([a.clone(), b.clone()]), Filter::any([c.clone(), a.clone()])]),
                b"(PrefixFilter('a') AND KeyOnlyFilter()) OR PageFilter(1) OR PrefixFilter('a')",
            ),
            (Filter::all([a.clone()]), b"PrefixFilter('a')"),
            (Filter::all([Filter::any([a.clone()]), b.clone()]), b"PrefixFilter('a') AND KeyOnlyFilter()"),
            (skip.and(c), b"(SKIP ValueFilter(!=, 'binary:0')) AND PageFilter(1)"),
            (Filter::while_match(a.or(b)), b"WHILE (PrefixFilter('a') OR KeyOnlyFilter())"),
            (Filter::raw("A OR B").and(Filter::raw("C")), b"(A OR B) AND (C)"),
        ]);
    }

    #[test]
    fn errors() {
        let err = |f: Filter| f.render().unwrap_err();
        let (empty_incl, empty_excl) = (Some((Bytes::new(), true)), Some((Bytes::new(), false)));
        let scv = Filter::single_column_value("f", "q", CompareOp::Greater, Comparator::substring("a"));
        let cases = [
            (Filter::page(0), FilterError::InvalidPageSize(0)),
            (Filter::page(-3), FilterError::InvalidPageSize(-3)),
            (Filter::timestamps([1, -1]), FilterError::NegativeTimestamp(-1)),
            (Filter::column_count_get(-1), FilterError::NegativeColumnCount(-1)),
            (Filter::all([]), FilterError::EmptyFilterList),
            (Filter::any([]).or(Filter::key_only()), FilterError::EmptyFilterList),
            (Filter::prefix("a").and(Filter::all([])), FilterError::EmptyFilterList),
            (Filter::raw(" \t"), FilterError::EmptyRaw),
            (
                Filter::row(CompareOp::Less, Comparator::regex_string("a")),
                FilterError::UnsupportedCompareOp("regexstring", CompareOp::Less),
            ),
            (scv.build(), FilterError::UnsupportedCompareOp("substring", CompareOp::Greater)),
            (Filter::column_range(None, empty_incl), FilterError::EmptyColumnRangeBound("max")),
            (Filter::column_range(empty_excl, None), FilterError::EmptyColumnRangeBound("min")),
        ];
        for (f, want) in cases {
            assert_eq!(err(f), want);
        }
        let bad_regex = Comparator::regex_string_utf8([0xff, b'a']);
        assert!(matches!(bad_regex, Err(FilterError::InvalidUtf8("regexstring", _))));
        let bad_sub = Comparator::substring_utf8([0xc3]);
        assert!(matches!(bad_sub, Err(FilterError::InvalidUtf8("substring", _))));
        assert_eq!(Comparator::substring_utf8("é"), Ok(Comparator::substring("é")));
    }

    #[test]
    fn display_is_lossy_and_escaped() {
        let f = Filter::prefix(vec![b'a', 0xff, b'\\', b'\n', 0xc3, 0xa9]).and(Filter::page(2));
        assert_eq!(f.to_string(), "PrefixFilter('a\\xFF\\\\\\x0Aé') AND PageFilter(2)");
        assert_eq!(Filter::page(0).to_string(), "<invalid filter: PageFilter size must be > 0 (got 0)>");
        assert_eq!(CompareOp::NotEqual.to_string(), "!=");
    }
}
