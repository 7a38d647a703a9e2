//! Filters as a user writes them in HBase's filter language: Basalt reads the text with
//! `Filter::parse`, the Java side with HBase's own `ParseFilter`, and the answers are
//! compared as for every other read. The text is written here, independently of
//! Basalt's renderer, with the freedom a person has: spaces or none around commas and
//! parentheses, optional arguments left out, a quote inside a quoted string doubled,
//! groups of one operator without parentheses. (Groups mixing `AND` and `OR` are
//! parenthesised: HBase mis-reads `A OR B AND C`, which Basalt reads by precedence, a
//! difference documented on `Filter::parse`.)
//!
//! A second pass puts `BinaryComponentComparator`s where the battery has binary ones.
//! Both passes draw from generators of their own, so a seed's other reads stay as they
//! were.

use std::sync::Mutex;

use basalt::filter::Filter;
use basalt::{Bytes, CompareOp};

use super::gen::Rng;
use super::model::{Cmp, Filt, GetD, Opts, Read, ScanD};

/// Texts Basalt's parser refused (each a Basalt bug: the text was written from a valid
/// filter); the run fails on any.
static PARSE_FAILURES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Basalt's reading of `text`; a refusal is recorded and `fallback` used, so that the
/// run goes on and fails at its end ([`parse_failures`]).
pub fn parse(text: &str, fallback: &Filt) -> Filter {
    match Filter::parse(text) {
        Ok(f) => f,
        Err(e) => {
            if let Ok(mut failures) = PARSE_FAILURES.lock() {
                failures.push(format!("{text:?}: {e}"));
            }
            fallback.to_basalt()
        }
    }
}

/// The texts Basalt refused so far (taken).
pub fn parse_failures() -> Vec<String> {
    PARSE_FAILURES.lock().map(|mut f| std::mem::take(&mut *f)).unwrap_or_default()
}

/// How many of `read`'s filters are filter-language text.
pub fn texts_in(read: &Read) -> usize {
    texts_of(read).len()
}

/// `read`'s filters that are filter-language text.
pub fn texts_of(read: &Read) -> Vec<&str> {
    let filters: Vec<&Option<Filt>> = match read {
        Read::Get(g) | Read::Exists(g) => vec![&g.opts.filter],
        Read::GetMany(gs) | Read::ExistsMany(gs) => gs.iter().map(|g| &g.opts.filter).collect(),
        Read::Scan(s) => vec![&s.opts.filter],
    };
    filters
        .into_iter()
        .filter_map(|f| match f {
            Some(Filt::Text(text, _)) => Some(text.as_str()),
            Some(_) | None => None,
        })
        .collect()
}

/// Rewrites some of `read`'s filters: binary comparators as component comparators, and
/// whole filters as filter-language text.
pub fn widen(rng: &mut Rng, read: &mut Read) {
    let filters: Vec<&mut Option<Filt>> = match read {
        Read::Get(g) | Read::Exists(g) => vec![&mut g.opts.filter],
        Read::GetMany(gs) | Read::ExistsMany(gs) => gs.iter_mut().map(|g| &mut g.opts.filter).collect(),
        Read::Scan(s) => vec![&mut s.opts.filter],
    };
    for slot in filters {
        let Some(filter) = slot.as_mut() else { continue };
        components(rng, filter);
        if rng.chance(45) {
            let written = Writer { rng: &mut *rng }.filter(filter, Context::Top, false);
            if let Some(text) = written {
                let typed = filter.clone();
                *filter = Filt::Text(text, Box::new(typed));
            }
        }
    }
}

/// Some binary comparators become component comparators: the same bytes compared at
/// an offset of the cell's bytes (0 to 2).
fn components(rng: &mut Rng, f: &mut Filt) {
    let cmp = match f {
        Filt::All(m) | Filt::Any(m) => return m.iter_mut().for_each(|x| components(rng, x)),
        Filt::Skip(x) | Filt::While(x) => return components(rng, x),
        Filt::Row(_, c) | Filt::Value(_, c) | Filt::Qualifier(_, c) | Filt::Family(_, c) => c,
        Filt::SingleColumnValue { cmp, .. } | Filt::ColumnValue(_, _, _, cmp) => cmp,
        Filt::DependentColumn { value: Some((_, c)), .. } => c,
        Filt::DependentColumn { value: None, .. }
        | Filt::Prefix(_)
        | Filt::ColumnPrefix(_)
        | Filt::MultipleColumnPrefix(_)
        | Filt::InclusiveStop(_)
        | Filt::Page(_)
        | Filt::KeyOnly
        | Filt::FirstKeyOnly
        | Filt::Timestamps(_)
        | Filt::ColumnRange(..)
        | Filt::ColumnCountGet(_)
        | Filt::ColumnPagination(..)
        | Filt::ColumnPaginationFrom(..)
        | Filt::KeyOnlyWithLengths
        | Filt::FuzzyRow(_)
        | Filt::MultiRowRange(_)
        | Filt::Text(..)
        | Filt::TextHBaseRefuses(..) => return,
    };
    if let Cmp::Binary(value) = cmp {
        if rng.chance(25) {
            let offset = rng.below(3) as u32;
            let take = 1 + rng.below(value.len().max(1));
            *cmp = Cmp::BinaryComponent(value.slice(..take.min(value.len())), offset);
        }
    }
}

/// Where a filter is written: operands of `AND`/`OR` need parentheses around a group of
/// the other operator, an operand of `SKIP`/`WHILE` around any group. Inside
/// parentheses HBase's parser reduces one operator per closing parenthesis (its `)`
/// pops one operator too many): there every compound operand of an operator gets
/// parentheses of its own, else HBase refuses the text (see [`hbase_refuses`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Top,
    InAll,
    InAny,
    Unary,
}

struct Writer<'a> {
    rng: &'a mut Rng,
}

impl Writer<'_> {
    /// Zero, one or two spaces.
    fn pad(&mut self) -> &'static str {
        ["", " ", "  "][self.rng.below(3)]
    }

    /// `Name(arg, ...)` with random spacing.
    fn call(&mut self, name: &str, args: &[String]) -> String {
        let mut out = format!("{name}{}({}", self.pad(), self.pad());
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(self.pad());
                out.push(',');
                out.push_str(self.pad());
            }
            out.push_str(arg);
        }
        out.push_str(self.pad());
        out.push(')');
        out
    }

    /// A quoted byte string (`None` where Basalt's `&str` cannot hold the bytes).
    fn quoted(bytes: &[u8]) -> Option<String> {
        let text = std::str::from_utf8(bytes).ok()?;
        Some(format!("'{}'", text.replace('\'', "''")))
    }

    fn op(o: CompareOp) -> &'static str {
        match o {
            CompareOp::Less => "<",
            CompareOp::LessOrEqual => "<=",
            CompareOp::Equal => "=",
            CompareOp::NotEqual => "!=",
            CompareOp::GreaterOrEqual => ">=",
            CompareOp::Greater => ">",
        }
    }

    /// A comparator argument (`'binary:abc'`); the filter language has four types
    /// (HBase 2.6's `ParseFilter`).
    fn comparator(c: &Cmp) -> Option<String> {
        let (kind, value): (&str, &[u8]) = match c {
            Cmp::Binary(b) => ("binary", b),
            Cmp::BinaryPrefix(b) => ("binaryprefix", b),
            Cmp::Regex(s) => ("regexstring", s.as_bytes()),
            Cmp::Substring(s) => ("substring", s.as_bytes()),
            Cmp::RegexNoCase(_) | Cmp::Long(_) | Cmp::Bit(..) | Cmp::Null | Cmp::BinaryComponent(..) => return None,
        };
        let mut raw = kind.as_bytes().to_vec();
        raw.push(b':');
        raw.extend_from_slice(value);
        Writer::quoted(&raw)
    }

    fn boolean(&mut self, b: bool) -> String {
        let word = if b { "true" } else { "false" };
        if self.rng.chance(20) {
            word.to_uppercase()
        } else {
            word.to_owned()
        }
    }

    fn compare(&mut self, name: &str, o: CompareOp, c: &Cmp) -> Option<String> {
        let args = [Writer::op(o).to_owned(), Writer::comparator(c)?];
        Some(self.call(name, &args))
    }

    /// The text of `f` written where `at` says (`inside`: within parentheses), or `None`
    /// when the filter language cannot say it.
    fn filter(&mut self, f: &Filt, at: Context, inside: bool) -> Option<String> {
        let text = match f {
            Filt::All(m) | Filt::Any(m) => {
                let (word, inner) =
                    if matches!(f, Filt::All(_)) { ("AND", Context::InAll) } else { ("OR", Context::InAny) };
                let needs_parens = match at {
                    Context::Top => self.rng.chance(20),
                    // A group inside parentheses, as an operand: its own parentheses.
                    Context::InAll | Context::InAny if inside => true,
                    Context::InAll => inner != Context::InAll || self.rng.chance(40),
                    Context::InAny => inner != Context::InAny || self.rng.chance(40),
                    Context::Unary => true,
                };
                let within = inside || needs_parens;
                let parts: Option<Vec<String>> = m.iter().map(|x| self.filter(x, inner, within)).collect();
                let joined = parts?.join(&format!(" {word} "));
                return Some(if needs_parens { format!("({}{joined}{})", self.pad(), self.pad()) } else { joined });
            }
            Filt::Skip(x) | Filt::While(x) => {
                let word = if matches!(f, Filt::Skip(_)) { "SKIP" } else { "WHILE" };
                // Inside parentheses, a unary operand of an operator: its own parentheses.
                let own_parens = inside && at != Context::Top;
                let inner = self.filter(x, Context::Unary, inside || own_parens)?;
                // `SKIP(...)`: a keyword needs a space or a parenthesis after it.
                let gap = if inner.starts_with('(') { self.pad() } else { " " };
                let text = format!("{word}{gap}{inner}");
                return Some(if own_parens { format!("({text})") } else { text });
            }
            Filt::Prefix(p) => self.call("PrefixFilter", &[Writer::quoted(p)?]),
            Filt::ColumnPrefix(p) => self.call("ColumnPrefixFilter", &[Writer::quoted(p)?]),
            Filt::MultipleColumnPrefix(ps) => {
                let mut distinct: Vec<&Bytes> = Vec::new();
                for p in ps {
                    if !distinct.contains(&p) {
                        distinct.push(p);
                    }
                }
                let args: Option<Vec<String>> = distinct.iter().map(|p| Writer::quoted(p)).collect();
                self.call("MultipleColumnPrefixFilter", &args?)
            }
            Filt::InclusiveStop(r) => self.call("InclusiveStopFilter", &[Writer::quoted(r)?]),
            Filt::Page(n) => self.call("PageFilter", &[n.to_string()]),
            Filt::Row(o, c) => self.compare("RowFilter", *o, c)?,
            Filt::Value(o, c) => self.compare("ValueFilter", *o, c)?,
            Filt::Qualifier(o, c) => self.compare("QualifierFilter", *o, c)?,
            Filt::Family(o, c) => self.compare("FamilyFilter", *o, c)?,
            Filt::KeyOnly => self.call("KeyOnlyFilter", &[]),
            Filt::KeyOnlyWithLengths => {
                let yes = self.boolean(true);
                self.call("KeyOnlyFilter", &[yes])
            }
            Filt::FirstKeyOnly => self.call("FirstKeyOnlyFilter", &[]),
            Filt::Timestamps(ts) => {
                let args: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
                self.call("TimestampsFilter", &args)
            }
            Filt::ColumnRange(min, max) => {
                // An empty bound is no bound (its flag is then ignored).
                let (lo, lo_in) = min.clone().unwrap_or((Bytes::new(), false));
                let (hi, hi_in) = max.clone().unwrap_or((Bytes::new(), false));
                let args = [Writer::quoted(&lo)?, self.boolean(lo_in), Writer::quoted(&hi)?, self.boolean(hi_in)];
                self.call("ColumnRangeFilter", &args)
            }
            Filt::ColumnCountGet(n) => self.call("ColumnCountGetFilter", &[n.to_string()]),
            Filt::SingleColumnValue { family, qualifier, op, cmp, if_missing, latest_only, exclude } => {
                let name = if *exclude { "SingleColumnValueExcludeFilter" } else { "SingleColumnValueFilter" };
                let mut args = vec![
                    Writer::quoted(family)?,
                    Writer::quoted(qualifier)?,
                    Writer::op(*op).to_owned(),
                    Writer::comparator(cmp)?,
                ];
                // The two flags may be left out when they are the defaults.
                if *if_missing || !*latest_only || self.rng.chance(50) {
                    args.push(self.boolean(*if_missing));
                    args.push(self.boolean(*latest_only));
                }
                self.call(name, &args)
            }
            Filt::ColumnPagination(limit, offset) => {
                self.call("ColumnPaginationFilter", &[limit.to_string(), offset.to_string()])
            }
            Filt::DependentColumn { family, qualifier, drop, value } => {
                let mut args = vec![Writer::quoted(family)?, Writer::quoted(qualifier)?];
                match value {
                    Some((o, c)) => {
                        args.push(self.boolean(*drop));
                        args.push(Writer::op(*o).to_owned());
                        args.push(Writer::comparator(c)?);
                    }
                    None if *drop || self.rng.chance(50) => args.push(self.boolean(*drop)),
                    None => {}
                }
                self.call("DependentColumnFilter", &args)
            }
            Filt::ColumnPaginationFrom(..)
            | Filt::ColumnValue(..)
            | Filt::FuzzyRow(_)
            | Filt::MultiRowRange(_)
            | Filt::Text(..)
            | Filt::TextHBaseRefuses(..) => return None,
        };
        Some(text)
    }
}

/// Texts the filter language's grammar allows and HBase's `ParseFilter` (2.6) refuses,
/// each with the filter it means: a group inside parentheses holding a unary operator
/// after a binary one, `OR` before `AND`, or two unary operators ("Mismatched
/// parenthesis", or an `EmptyStackException`). Basalt reads them by the grammar; the
/// Java side is given the filter each means, so the answers are still compared.
pub fn hbase_refuses() -> Vec<(&'static str, Filt)> {
    let bin = |x: &[u8]| Cmp::Binary(Bytes::copy_from_slice(x));
    vec![
        (
            "(ValueFilter(=, 'substring:a') AND SKIP QualifierFilter(!=, 'binary:q0'))",
            Filt::All(vec![
                Filt::Value(CompareOp::Equal, Cmp::Substring("a".into())),
                Filt::Skip(Box::new(Filt::Qualifier(CompareOp::NotEqual, bin(b"q0")))),
            ]),
        ),
        (
            "(PrefixFilter('k') OR KeyOnlyFilter() AND FirstKeyOnlyFilter())",
            Filt::Any(vec![Filt::Prefix(Bytes::from_static(b"k")), Filt::All(vec![Filt::KeyOnly, Filt::FirstKeyOnly])]),
        ),
        (
            "(SKIP SKIP ValueFilter(!=, 'binary:x'))",
            Filt::Skip(Box::new(Filt::Skip(Box::new(Filt::Value(CompareOp::NotEqual, bin(b"x")))))),
        ),
        (
            "FirstKeyOnlyFilter() AND (KeyOnlyFilter() OR SKIP ValueFilter(=, 'binary:1'))",
            Filt::All(vec![
                Filt::FirstKeyOnly,
                Filt::Any(vec![Filt::KeyOnly, Filt::Skip(Box::new(Filt::Value(CompareOp::Equal, bin(b"1"))))]),
            ]),
        ),
    ]
}

/// A scan and a get of the battery's rows for each of [`hbase_refuses`].
pub fn hbase_refuses_reads() -> Vec<(String, Read)> {
    let mut out = Vec::new();
    for (i, (text, typed)) in hbase_refuses().into_iter().enumerate() {
        let filter = Some(Filt::TextHBaseRefuses(text.to_owned(), Box::new(typed)));
        let opts = Opts { filter, ..Opts::default() };
        let scan = ScanD {
            start: Bytes::from_static(b"k"),
            stop: Bytes::from_static(b"l"),
            opts: opts.clone(),
            ..ScanD::default()
        };
        out.push((format!("text HBase's parser refuses {i}: scan"), Read::Scan(scan)));
        let get = GetD { row: Bytes::from_static(b"k5"), ts: None, opts };
        out.push((format!("text HBase's parser refuses {i}: get"), Read::Get(get)));
    }
    out
}
