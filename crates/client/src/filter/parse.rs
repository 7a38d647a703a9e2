//! Reading HBase's filter language on the client, with errors that say what and where.
//!
//! The grammar follows HBase's `ParseFilter`: `SKIP` and `WHILE` bind tightest, then `AND`,
//! then `OR`; parentheses group. Keywords are upper case and stand apart (a space or a
//! parenthesis on each side). A simple filter is `Name(arg, arg, ...)`, an argument a
//! quoted byte string (`'it''s'`: a doubled quote is one quote), a comparator
//! (`'binary:abc'`), a compare operator, an integer or a boolean (`true`/`false`, any
//! case). Unlike HBase's own parser, arguments must be separated by commas, and any
//! text the grammar allows is read: HBase 2.6's `ParseFilter` refuses a parenthesised
//! group it cannot reduce with one operator (`(A OR B AND C)`, `(A AND SKIP B)`,
//! `(SKIP SKIP A)`: "Mismatched parenthesis"), which Basalt reads by the precedence
//! above. The rendering of a parsed filter parenthesises every compound operand, which
//! HBase reads.

use std::fmt;

use bytes::Bytes;

use super::model::{Comparator, CompareKind, CompareOp, Node, PageStart, QuotedKind};
use super::{Filter, FilterError};

/// A filter string that is not valid filter language: what is wrong, and the byte
/// position where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterParseError {
    position: usize,
    kind: ParseErrorKind,
}

impl FilterParseError {
    /// Byte offset in the filter string where the problem was found.
    pub fn position(&self) -> usize {
        self.position
    }

    /// What is wrong.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

/// `"<what is wrong> at position <byte offset>"`.
impl fmt::Display for FilterParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at position {}", self.kind, self.position)
    }
}

impl std::error::Error for FilterParseError {}

/// What is wrong with a filter string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// Something else was found where this (described) was needed.
    #[error("expected {0}")]
    Expected(&'static str),
    /// A filter name HBase's filter language does not know.
    #[error("unknown filter '{0}'")]
    UnknownFilter(String),
    /// A comparator type other than binary, binaryprefix, regexstring, regexstringnocase, substring.
    #[error(
        "unknown comparator type '{0}' (the filter language has binary, binaryprefix, regexstring, \
         regexstringnocase and substring)"
    )]
    UnknownComparator(String),
    /// A comparator without the `type:` part.
    #[error("a comparator is written 'type:value', and this one has no ':'")]
    ComparatorWithoutType,
    /// A quoted string without its closing quote.
    #[error("unterminated quoted string")]
    UnterminatedQuote,
    /// A filter given the wrong number of arguments.
    #[error("{filter} takes {expected} arguments, found {found}")]
    ArgumentCount {
        /// The filter's name.
        filter: &'static str,
        /// The counts it accepts, in words.
        expected: &'static str,
        /// The count found.
        found: usize,
    },
    /// An argument of the wrong kind.
    #[error("argument {index} of {filter} must be {expected}")]
    ArgumentType {
        /// The filter's name.
        filter: &'static str,
        /// The argument's number, from 1.
        index: usize,
        /// What it must be.
        expected: &'static str,
    },
    /// An integer argument outside its type's range.
    #[error("argument {index} of {filter} is out of range ({range})")]
    OutOfRange {
        /// The filter's name.
        filter: &'static str,
        /// The argument's number, from 1.
        index: usize,
        /// The range allowed.
        range: &'static str,
    },
    /// `MultipleColumnPrefixFilter` given the same prefix twice (HBase refuses it).
    #[error("MultipleColumnPrefixFilter prefixes must be distinct")]
    DuplicatePrefix,
    /// Arguments that HBase's filter constructors refuse.
    #[error("{0}")]
    Invalid(FilterError),
}

type Result<T> = std::result::Result<T, FilterParseError>;

pub(super) fn parse(text: &[u8]) -> Result<Filter> {
    let mut p = Parser { s: text, pos: 0 };
    let filter = p.or_expr()?;
    p.skip_ws();
    if p.pos < p.s.len() {
        return Err(p.error(ParseErrorKind::Expected("AND, OR or the end of the filter")));
    }
    Ok(filter)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

/// One argument as written, with its position.
enum Arg {
    Quoted(usize, Vec<u8>),
    Bare(usize, Vec<u8>),
}

impl Arg {
    fn position(&self) -> usize {
        match self {
            Arg::Quoted(at, _) | Arg::Bare(at, _) => *at,
        }
    }
}

const QUOTED: &str = "a quoted string";
const COMPARATOR: &str = "a quoted comparator 'type:value'";
const OPERATOR: &str = "a compare operator (<, <=, =, !=, >=, >)";
const BOOLEAN: &str = "true or false";
const INTEGER: &str = "an integer";

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl Parser<'_> {
    fn error(&self, kind: ParseErrorKind) -> FilterParseError {
        FilterParseError { position: self.pos, kind }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    /// Consumes `word` if it stands here as a keyword (followed by a space, `(` or the
    /// end, so that a dangling operator is reported as such).
    fn keyword(&mut self, word: &[u8]) -> bool {
        self.skip_ws();
        let end = self.pos + word.len();
        let here = self.s.get(self.pos..end) == Some(word);
        if here && self.s.get(end).is_none_or(|&b| is_ws(b) || b == b'(') {
            self.pos = end;
            return true;
        }
        false
    }

    fn or_expr(&mut self) -> Result<Filter> {
        let mut members = vec![self.and_expr()?];
        while self.keyword(b"OR") {
            members.push(self.and_expr()?);
        }
        Ok(Filter::any(members))
    }

    fn and_expr(&mut self) -> Result<Filter> {
        let mut members = vec![self.unary()?];
        while self.keyword(b"AND") {
            members.push(self.unary()?);
        }
        Ok(Filter::all(members))
    }

    fn unary(&mut self) -> Result<Filter> {
        if self.keyword(b"SKIP") {
            return Ok(Filter::skip(self.unary()?));
        }
        if self.keyword(b"WHILE") {
            return Ok(Filter::while_match(self.unary()?));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Filter> {
        self.skip_ws();
        if self.peek() == Some(b'(') {
            self.pos += 1;
            let inner = self.or_expr()?;
            self.skip_ws();
            if self.peek() != Some(b')') {
                return Err(self.error(ParseErrorKind::Expected("')'")));
            }
            self.pos += 1;
            return Ok(inner);
        }
        self.simple()
    }

    fn simple(&mut self) -> Result<Filter> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error(ParseErrorKind::Expected("a filter")));
        }
        let name = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        if let Some(expected) = match name.as_str() {
            "AND" => Some("a filter before AND"),
            "OR" => Some("a filter before OR"),
            _ => None,
        } {
            return Err(FilterParseError { position: start, kind: ParseErrorKind::Expected(expected) });
        }
        let Some(kind) = LanguageFilter::from_name(&name) else {
            return Err(FilterParseError { position: start, kind: ParseErrorKind::UnknownFilter(name) });
        };
        self.skip_ws();
        if self.peek() != Some(b'(') {
            return Err(self.error(ParseErrorKind::Expected("'(' after the filter name")));
        }
        self.pos += 1;
        let args = self.arguments()?;
        let filter = kind.build(Args { filter: kind.name(), name_at: start, close_at: self.pos - 1, args })?;
        super::check::check_node(&filter.node)
            .map_err(|e| FilterParseError { position: start, kind: ParseErrorKind::Invalid(e) })?;
        Ok(filter)
    }

    /// The arguments after `(`, through the closing `)`.
    fn arguments(&mut self) -> Result<Vec<Arg>> {
        let mut args = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b')') {
            self.pos += 1;
            return Ok(args);
        }
        loop {
            self.skip_ws();
            args.push(self.argument()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    return Ok(args);
                }
                Some(_) | None => return Err(self.error(ParseErrorKind::Expected("',' or ')'"))),
            }
        }
    }

    fn argument(&mut self) -> Result<Arg> {
        if self.peek() == Some(b'\'') {
            let open = self.pos;
            self.pos += 1;
            let mut value = Vec::new();
            loop {
                match self.peek() {
                    None => return Err(FilterParseError { position: open, kind: ParseErrorKind::UnterminatedQuote }),
                    Some(b'\'') if self.s.get(self.pos + 1) == Some(&b'\'') => {
                        value.push(b'\'');
                        self.pos += 2;
                    }
                    Some(b'\'') => {
                        self.pos += 1;
                        return Ok(Arg::Quoted(open, value));
                    }
                    Some(b) => {
                        value.push(b);
                        self.pos += 1;
                    }
                }
            }
        }
        let start = self.pos;
        while self.peek().is_some_and(|b| !is_ws(b) && b != b',' && b != b')' && b != b'(' && b != b'\'') {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error(ParseErrorKind::Expected("an argument")));
        }
        Ok(Arg::Bare(start, self.s[start..self.pos].to_vec()))
    }
}

/// The filters HBase 2.6's `ParseFilter` registers.
#[derive(Debug, Clone, Copy)]
enum LanguageFilter {
    KeyOnly,
    FirstKeyOnly,
    Prefix,
    ColumnPrefix,
    MultipleColumnPrefix,
    ColumnCountGet,
    Page,
    ColumnPagination,
    InclusiveStop,
    Timestamps,
    Row,
    Family,
    Qualifier,
    Value,
    ColumnRange,
    SingleColumnValue,
    SingleColumnValueExclude,
    DependentColumn,
    ColumnValue,
}

impl LanguageFilter {
    const ALL: [LanguageFilter; 19] = [
        LanguageFilter::KeyOnly,
        LanguageFilter::FirstKeyOnly,
        LanguageFilter::Prefix,
        LanguageFilter::ColumnPrefix,
        LanguageFilter::MultipleColumnPrefix,
        LanguageFilter::ColumnCountGet,
        LanguageFilter::Page,
        LanguageFilter::ColumnPagination,
        LanguageFilter::InclusiveStop,
        LanguageFilter::Timestamps,
        LanguageFilter::Row,
        LanguageFilter::Family,
        LanguageFilter::Qualifier,
        LanguageFilter::Value,
        LanguageFilter::ColumnRange,
        LanguageFilter::SingleColumnValue,
        LanguageFilter::SingleColumnValueExclude,
        LanguageFilter::DependentColumn,
        LanguageFilter::ColumnValue,
    ];

    fn name(self) -> &'static str {
        match self {
            LanguageFilter::KeyOnly => "KeyOnlyFilter",
            LanguageFilter::FirstKeyOnly => "FirstKeyOnlyFilter",
            LanguageFilter::Prefix => "PrefixFilter",
            LanguageFilter::ColumnPrefix => "ColumnPrefixFilter",
            LanguageFilter::MultipleColumnPrefix => "MultipleColumnPrefixFilter",
            LanguageFilter::ColumnCountGet => "ColumnCountGetFilter",
            LanguageFilter::Page => "PageFilter",
            LanguageFilter::ColumnPagination => "ColumnPaginationFilter",
            LanguageFilter::InclusiveStop => "InclusiveStopFilter",
            LanguageFilter::Timestamps => "TimestampsFilter",
            LanguageFilter::Row => "RowFilter",
            LanguageFilter::Family => "FamilyFilter",
            LanguageFilter::Qualifier => "QualifierFilter",
            LanguageFilter::Value => "ValueFilter",
            LanguageFilter::ColumnRange => "ColumnRangeFilter",
            LanguageFilter::SingleColumnValue => "SingleColumnValueFilter",
            LanguageFilter::SingleColumnValueExclude => "SingleColumnValueExcludeFilter",
            LanguageFilter::DependentColumn => "DependentColumnFilter",
            LanguageFilter::ColumnValue => "ColumnValueFilter",
        }
    }

    fn from_name(name: &str) -> Option<LanguageFilter> {
        LanguageFilter::ALL.into_iter().find(|f| f.name() == name)
    }

    fn build(self, a: Args) -> Result<Filter> {
        let filter = match self {
            LanguageFilter::KeyOnly => {
                a.count(&[0, 1], "0 or 1")?;
                Filter::new(Node::KeyOnly(a.args.len() == 1 && a.boolean(0)?))
            }
            LanguageFilter::FirstKeyOnly => {
                a.count(&[0], "no")?;
                Filter::first_key_only()
            }
            LanguageFilter::Prefix => {
                a.count(&[1], "1")?;
                Filter::new(Node::Quoted(QuotedKind::Prefix, a.quoted(0)?))
            }
            LanguageFilter::ColumnPrefix => {
                a.count(&[1], "1")?;
                Filter::new(Node::Quoted(QuotedKind::ColumnPrefix, a.quoted(0)?))
            }
            LanguageFilter::InclusiveStop => {
                a.count(&[1], "1")?;
                Filter::new(Node::Quoted(QuotedKind::InclusiveStop, a.quoted(0)?))
            }
            LanguageFilter::MultipleColumnPrefix => {
                let prefixes = (0..a.args.len()).map(|i| a.quoted(i)).collect::<Result<Vec<_>>>()?;
                let distinct = prefixes.iter().enumerate().all(|(i, p)| !prefixes[..i].contains(p));
                if !distinct {
                    return Err(FilterParseError { position: a.name_at, kind: ParseErrorKind::DuplicatePrefix });
                }
                Filter::new(Node::MultipleColumnPrefix(prefixes))
            }
            LanguageFilter::ColumnCountGet => {
                a.count(&[1], "1")?;
                Filter::column_count_get(a.int(0)?)
            }
            LanguageFilter::Page => {
                a.count(&[1], "1")?;
                Filter::page(a.long(0)?)
            }
            LanguageFilter::ColumnPagination => {
                a.count(&[2], "2")?;
                Filter::new(Node::ColumnPagination(a.int(0)?, PageStart::Offset(a.int(1)?)))
            }
            LanguageFilter::Timestamps => {
                Filter::timestamps((0..a.args.len()).map(|i| a.long(i)).collect::<Result<Vec<_>>>()?)
            }
            LanguageFilter::Row => a.compare(CompareKind::Row)?,
            LanguageFilter::Family => a.compare(CompareKind::Family)?,
            LanguageFilter::Qualifier => a.compare(CompareKind::Qualifier)?,
            LanguageFilter::Value => a.compare(CompareKind::Value)?,
            LanguageFilter::ColumnRange => {
                a.count(&[4], "4")?;
                // HBase reads an empty bound as "none", whatever its inclusive flag.
                let bound = |b: Bytes, inclusive: bool| (!b.is_empty()).then_some((b, inclusive));
                let min = bound(a.quoted(0)?, a.boolean(1)?);
                let max = bound(a.quoted(2)?, a.boolean(3)?);
                Filter::new(Node::ColumnRange(min, max))
            }
            LanguageFilter::SingleColumnValue | LanguageFilter::SingleColumnValueExclude => {
                a.count(&[4, 6], "4 or 6")?;
                let (family, qualifier, op, cmp) = (a.quoted(0)?, a.quoted(1)?, a.op(2)?, a.comparator(3)?);
                let mut scv = if matches!(self, LanguageFilter::SingleColumnValueExclude) {
                    Filter::single_column_value_exclude(family, qualifier, op, cmp)
                } else {
                    Filter::single_column_value(family, qualifier, op, cmp)
                };
                if a.args.len() == 6 {
                    scv = scv.filter_if_missing(a.boolean(4)?).latest_version_only(a.boolean(5)?);
                }
                scv.build()
            }
            LanguageFilter::DependentColumn => {
                a.count(&[2, 3, 5], "2, 3 or 5")?;
                let mut d = Filter::dependent_column(a.quoted(0)?, a.quoted(1)?);
                if a.args.len() >= 3 {
                    d = d.drop_dependent_column(a.boolean(2)?);
                }
                if a.args.len() == 5 {
                    d = d.value(a.op(3)?, a.comparator(4)?);
                }
                d.build()
            }
            LanguageFilter::ColumnValue => {
                a.count(&[4], "4")?;
                Filter::column_value(a.quoted(0)?, a.quoted(1)?, a.op(2)?, a.comparator(3)?)
            }
        };
        Ok(filter)
    }
}

/// A simple filter's arguments, read by position (`index` from 0; messages count from 1).
struct Args {
    filter: &'static str,
    /// Where the filter's name starts.
    name_at: usize,
    /// Where its closing `)` is.
    close_at: usize,
    args: Vec<Arg>,
}

impl Args {
    fn count(&self, allowed: &[usize], expected: &'static str) -> Result<()> {
        if allowed.contains(&self.args.len()) {
            return Ok(());
        }
        let kind = ParseErrorKind::ArgumentCount { filter: self.filter, expected, found: self.args.len() };
        Err(FilterParseError { position: self.close_at, kind })
    }

    fn at(&self, index: usize, kind: ParseErrorKind) -> FilterParseError {
        FilterParseError { position: self.args[index].position(), kind }
    }

    fn wrong(&self, index: usize, expected: &'static str) -> FilterParseError {
        self.at(index, ParseErrorKind::ArgumentType { filter: self.filter, index: index + 1, expected })
    }

    fn quoted(&self, index: usize) -> Result<Bytes> {
        match &self.args[index] {
            Arg::Quoted(_, v) => Ok(Bytes::from(v.clone())),
            Arg::Bare(..) => Err(self.wrong(index, QUOTED)),
        }
    }

    fn bare(&self, index: usize, expected: &'static str) -> Result<&[u8]> {
        match &self.args[index] {
            Arg::Bare(_, v) => Ok(v),
            Arg::Quoted(..) => Err(self.wrong(index, expected)),
        }
    }

    fn boolean(&self, index: usize) -> Result<bool> {
        let word = self.bare(index, BOOLEAN)?;
        if word.eq_ignore_ascii_case(b"true") {
            Ok(true)
        } else if word.eq_ignore_ascii_case(b"false") {
            Ok(false)
        } else {
            Err(self.wrong(index, BOOLEAN))
        }
    }

    fn long(&self, index: usize) -> Result<i64> {
        let word = self.bare(index, INTEGER)?;
        let (negative, digits) = match word.strip_prefix(b"-") {
            Some(rest) => (true, rest),
            None => (false, word),
        };
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return Err(self.wrong(index, INTEGER));
        }
        let out_of_range = || {
            self.at(
                index,
                ParseErrorKind::OutOfRange { filter: self.filter, index: index + 1, range: "a 64-bit signed integer" },
            )
        };
        let mut value: i64 = 0;
        for d in digits {
            let digit = i64::from(d - b'0');
            value = value.checked_mul(10).ok_or_else(out_of_range)?;
            value =
                if negative { value.checked_sub(digit) } else { value.checked_add(digit) }.ok_or_else(out_of_range)?;
        }
        Ok(value)
    }

    fn int(&self, index: usize) -> Result<i32> {
        let value = self.long(index)?;
        let range = "a 32-bit signed integer";
        i32::try_from(value)
            .map_err(|_| self.at(index, ParseErrorKind::OutOfRange { filter: self.filter, index: index + 1, range }))
    }

    fn op(&self, index: usize) -> Result<CompareOp> {
        let word = self.bare(index, OPERATOR)?;
        CompareOp::ALL.into_iter().find(|op| op.symbol().as_bytes() == word).ok_or_else(|| self.wrong(index, OPERATOR))
    }

    fn comparator(&self, index: usize) -> Result<Comparator> {
        let text = match &self.args[index] {
            Arg::Quoted(_, v) => v,
            Arg::Bare(..) => return Err(self.wrong(index, COMPARATOR)),
        };
        let colon = text
            .iter()
            .position(|&b| b == b':')
            .ok_or_else(|| self.at(index, ParseErrorKind::ComparatorWithoutType))?;
        let (kind, value) = (&text[..colon], &text[colon + 1..]);
        let utf8 = |name| super::model::text(value, name).map_err(|e| self.at(index, ParseErrorKind::Invalid(e)));
        match kind {
            b"binary" => Ok(Comparator::binary(value.to_vec())),
            b"binaryprefix" => Ok(Comparator::binary_prefix(value.to_vec())),
            b"regexstring" => utf8("regexstring").map(Comparator::RegexString),
            b"regexstringnocase" => utf8("regexstringnocase").map(Comparator::RegexStringNoCase),
            b"substring" => utf8("substring").map(Comparator::Substring),
            other => {
                Err(self.at(index, ParseErrorKind::UnknownComparator(String::from_utf8_lossy(other).into_owned())))
            }
        }
    }

    fn compare(&self, kind: CompareKind) -> Result<Filter> {
        self.count(&[2], "2")?;
        Ok(Filter::new(Node::Compare(kind, self.op(0)?, self.comparator(1)?)))
    }
}
