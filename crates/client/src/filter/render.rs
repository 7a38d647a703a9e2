//! Writing a [`Filter`] in HBase's filter language, and its human-readable display.

use std::fmt;

use bytes::Bytes;

use super::check::{check_node, in_language};
use super::model::{Comparator, CompareOp, Node, PageStart};
use super::{Filter, FilterError};

/// The filter string for `filterString`: `Some` when the filter has a form in the
/// language, `None` when it must travel as protobuf (written by the transport).
pub(crate) fn filter_string(filter: Option<&Filter>) -> Result<Option<Vec<u8>>, FilterError> {
    match filter {
        Some(f) if in_language(f) => f.render().map(|b| Some(b.to_vec())),
        // Checked here too, so that validating a read covers both forms.
        Some(f) => f.validate().map(|_| None),
        None => Ok(None),
    }
}

pub(super) fn render(filter: &Filter) -> Result<Bytes, FilterError> {
    let mut out = Vec::new();
    Writer { out: &mut out, extended: false }.filter(filter)?;
    Ok(Bytes::from(out))
}

/// One argument of a simple filter expression.
enum Arg<'a> {
    Quoted(&'a [u8]),
    Cmp(&'a Comparator),
    Op(CompareOp),
    Bool(bool),
    Int(i64),
    /// Display only: a number written as is.
    Text(String),
}

/// Writes filters into `out`; `extended` (display only) also writes the protobuf-only
/// parts in a language-like form instead of failing.
struct Writer<'o> {
    out: &'o mut Vec<u8>,
    extended: bool,
}

impl Writer<'_> {
    /// Whether this filter must be parenthesised as an operand of AND/OR/SKIP/WHILE.
    ///
    /// HBase's parser mishandles mixed operators inside one parenthesised group (its `)`
    /// handling pops one operator too many), so every compound operand is wrapped: each
    /// group then holds a single operator kind.
    fn needs_parens(filter: &Filter) -> bool {
        match &filter.node {
            Node::List(_, members) => members.len() != 1,
            Node::Raw(_) | Node::Skip(_) | Node::While(_) => true,
            _ => false,
        }
    }

    fn operand(&mut self, filter: &Filter) -> Result<(), FilterError> {
        if !Self::needs_parens(filter) {
            return self.filter(filter);
        }
        self.out.push(b'(');
        self.filter(filter)?;
        self.out.push(b')');
        Ok(())
    }

    fn not_language(&self, what: &'static str) -> Result<(), FilterError> {
        if self.extended {
            Ok(())
        } else {
            Err(FilterError::NotInFilterLanguage(what))
        }
    }

    fn filter(&mut self, filter: &Filter) -> Result<(), FilterError> {
        check_node(&filter.node)?;
        match &filter.node {
            Node::SingleColumnValue(s) => {
                let mut args = vec![Arg::Quoted(&s.family), Arg::Quoted(&s.qualifier), Arg::Op(s.op), Arg::Cmp(&s.cmp)];
                if s.filter_if_missing || !s.latest_version_only {
                    args.extend([Arg::Bool(s.filter_if_missing), Arg::Bool(s.latest_version_only)]);
                }
                self.call(s.class_name(), &args)?;
            }
            Node::Quoted(kind, value) => self.call(kind.class_name(), &[Arg::Quoted(value)])?,
            Node::Page(size) => self.call("PageFilter", &[Arg::Int(*size)])?,
            Node::MultipleColumnPrefix(prefixes) => {
                let args: Vec<_> = prefixes.iter().map(|p| Arg::Quoted(p)).collect();
                self.call("MultipleColumnPrefixFilter", &args)?;
            }
            Node::Compare(kind, op, cmp) => self.call(kind.class_name(), &[Arg::Op(*op), Arg::Cmp(cmp)])?,
            Node::KeyOnly(false) => self.call("KeyOnlyFilter", &[])?,
            Node::KeyOnly(true) => self.call("KeyOnlyFilter", &[Arg::Bool(true)])?,
            Node::FirstKeyOnly => self.call("FirstKeyOnlyFilter", &[])?,
            Node::Timestamps(ts) => {
                self.call("TimestampsFilter", &ts.iter().map(|t| Arg::Int(*t)).collect::<Vec<_>>())?;
            }
            Node::ColumnRange(min, max) => {
                let (min, min_incl) = min.as_ref().map_or((&[][..], true), |(b, i)| (&b[..], *i));
                let (max, max_incl) = max.as_ref().map_or((&[][..], false), |(b, i)| (&b[..], *i));
                let args = [Arg::Quoted(min), Arg::Bool(min_incl), Arg::Quoted(max), Arg::Bool(max_incl)];
                self.call("ColumnRangeFilter", &args)?;
            }
            Node::ColumnCountGet(limit) => self.call("ColumnCountGetFilter", &[Arg::Int(i64::from(*limit))])?,
            Node::ColumnPagination(limit, PageStart::Offset(offset)) => {
                self.call("ColumnPaginationFilter", &[Arg::Int(i64::from(*limit)), Arg::Int(i64::from(*offset))])?;
            }
            Node::ColumnPagination(limit, PageStart::Column(column)) => {
                self.not_language("ColumnPaginationFilter with a column offset")?;
                self.call("ColumnPaginationFilter", &[Arg::Int(i64::from(*limit)), Arg::Quoted(column)])?;
            }
            Node::DependentColumn(d) => {
                let mut args = vec![Arg::Quoted(&d.family), Arg::Quoted(&d.qualifier)];
                match &d.value {
                    Some((op, cmp)) => args.extend([Arg::Bool(d.drop_dependent_column), Arg::Op(*op), Arg::Cmp(cmp)]),
                    None if d.drop_dependent_column => args.push(Arg::Bool(true)),
                    None => {}
                }
                self.call("DependentColumnFilter", &args)?;
            }
            Node::ColumnValue(family, qualifier, op, cmp) => {
                let args = [Arg::Quoted(family), Arg::Quoted(qualifier), Arg::Op(*op), Arg::Cmp(cmp)];
                self.call("ColumnValueFilter", &args)?;
            }
            Node::FuzzyRow(keys) => {
                self.not_language("FuzzyRowFilter")?;
                let args: Vec<_> = keys.iter().flat_map(|(k, m)| [Arg::Quoted(k), Arg::Quoted(m)]).collect();
                self.call("FuzzyRowFilter", &args)?;
            }
            Node::MultiRowRange(ranges) => {
                self.not_language("MultiRowRangeFilter")?;
                let args: Vec<_> = ranges
                    .iter()
                    .flat_map(|r| {
                        [
                            Arg::Quoted(&r.start),
                            Arg::Bool(r.start_inclusive),
                            Arg::Quoted(&r.stop),
                            Arg::Bool(r.stop_inclusive),
                        ]
                    })
                    .collect();
                self.call("MultiRowRangeFilter", &args)?;
            }
            Node::RandomRow(bits) => {
                self.not_language("RandomRowFilter")?;
                self.call("RandomRowFilter", &[Arg::Text(f32::from_bits(*bits).to_string())])?;
            }
            Node::Raw(text) => self.out.extend_from_slice(text),
            // A single-member list renders as just that member (there is no 1-element list syntax).
            Node::List(op, members) => {
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.extend_from_slice(op.keyword().as_bytes());
                    }
                    self.operand(m)?;
                }
            }
            Node::Skip(inner) => {
                self.out.extend_from_slice(b"SKIP ");
                self.operand(inner)?;
            }
            Node::While(inner) => {
                self.out.extend_from_slice(b"WHILE ");
                self.operand(inner)?;
            }
        }
        Ok(())
    }

    /// Writes `Name(arg, arg, ...)`.
    fn call(&mut self, name: &str, args: &[Arg<'_>]) -> Result<(), FilterError> {
        self.out.extend_from_slice(name.as_bytes());
        self.out.push(b'(');
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                self.out.extend_from_slice(b", ");
            }
            match arg {
                Arg::Quoted(value) => quote(self.out, "", value),
                Arg::Cmp(cmp) => self.comparator(cmp)?,
                Arg::Op(op) => self.out.extend_from_slice(op.symbol().as_bytes()),
                Arg::Bool(b) => self.out.extend_from_slice(if *b { b"true" } else { b"false" }),
                Arg::Int(n) => self.out.extend_from_slice(n.to_string().as_bytes()),
                Arg::Text(t) => self.out.extend_from_slice(t.as_bytes()),
            }
        }
        self.out.push(b')');
        Ok(())
    }

    fn comparator(&mut self, cmp: &Comparator) -> Result<(), FilterError> {
        if let Some(value) = cmp.language_value() {
            quote(self.out, cmp.type_name(), value);
            return Ok(());
        }
        self.not_language(cmp.type_name())?;
        let text = match cmp {
            Comparator::Long(v) => format!("long:{v}"),
            Comparator::Bit(v, op) => format!("bit{op:?}:{}", hex(v)),
            Comparator::Null => "null:".to_owned(),
            Comparator::BinaryComponent { value, offset } => format!("binarycomponent@{offset}:{}", hex(value)),
            Comparator::Binary(_)
            | Comparator::BinaryPrefix(_)
            | Comparator::RegexString(_)
            | Comparator::RegexStringNoCase(_)
            | Comparator::Substring(_) => String::new(),
        };
        quote(self.out, "", text.as_bytes());
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
/// (`\xNN`, `\\`). Parts only protobuf can carry are shown in a language-like form (which
/// does not parse). Invalid filters display as `<invalid filter: ...>`.
impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rendered = Vec::new();
        if let Err(e) = (Writer { out: &mut rendered, extended: true }).filter(self) {
            return write!(f, "<invalid filter: {e}>");
        }
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
