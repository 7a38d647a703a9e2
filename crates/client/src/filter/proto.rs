//! The serialized protobuf form of a filter: HBase's `hbase.pb.Filter` (`Filter.proto`,
//! `Comparator.proto`), as `ProtobufUtil.toFilter` writes it and Thrift2's `filterBytes`
//! carries it. The handful of messages involved are written field by field here.

use super::model::{BitwiseOp, Comparator, CompareOp, ListOp, Node, PageStart};
use super::render::{check_node, in_language};
use super::{Filter, FilterError};

/// Java package of HBase's filters and comparators (the `name` of `hbase.pb.Filter`).
const PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// The bytes for `filterBytes`: `Some` for a filter outside the filter language (which
/// then goes only this way), `None` when it goes as `filterString`.
pub(crate) fn filter_bytes(filter: Option<&Filter>) -> crate::error::Result<Option<Vec<u8>>> {
    match filter {
        Some(f) if !in_language(f) => encode(f).map(Some).map_err(|e| crate::error::InvalidInput::Filter(e).into()),
        Some(_) | None => Ok(None),
    }
}

/// `hbase.pb.Filter { name = 1, serialized_filter = 2 }`.
pub(super) fn encode(filter: &Filter) -> Result<Vec<u8>, FilterError> {
    let (class, body) = message(filter)?;
    let mut out = Msg::default();
    out.bytes(1, format!("{PACKAGE}{class}").as_bytes());
    out.bytes(2, &body.0);
    Ok(out.0)
}

/// A protobuf message being written.
#[derive(Default)]
struct Msg(Vec<u8>);

impl Msg {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire_type: u8) {
        self.varint((u64::from(field) << 3) | u64::from(wire_type));
    }

    /// `int64`, `uint32`, `bool` and enums: a varint.
    fn uint(&mut self, field: u32, v: u64) {
        self.key(field, 0);
        self.varint(v);
    }

    /// `int32`/`int64`: negative values are sign-extended to ten bytes.
    fn int(&mut self, field: u32, v: i64) {
        self.uint(field, v as u64);
    }

    fn boolean(&mut self, field: u32, v: bool) {
        self.uint(field, u64::from(v));
    }

    fn bytes(&mut self, field: u32, v: &[u8]) {
        self.key(field, 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
    }

    fn message(&mut self, field: u32, m: Msg) {
        self.bytes(field, &m.0);
    }

    fn float(&mut self, field: u32, v: f32) {
        self.key(field, 5);
        self.0.extend_from_slice(&v.to_le_bytes());
    }
}

/// `hbase.pb.CompareType`.
fn compare_type(op: CompareOp) -> u64 {
    match op {
        CompareOp::Less => 0,
        CompareOp::LessOrEqual => 1,
        CompareOp::Equal => 2,
        CompareOp::NotEqual => 3,
        CompareOp::GreaterOrEqual => 4,
        CompareOp::Greater => 5,
    }
}

/// `CompareType.NO_OP`: a `DependentColumnFilter` without a value test.
const NO_OP: u64 = 6;

/// Java's `Pattern.CASE_INSENSITIVE | Pattern.DOTALL`, what `regexstringnocase:` sets.
const NO_CASE_FLAGS: i64 = 0x02 | 0x20;

/// `ByteArrayComparable { value = 1 }`.
fn comparable(value: &[u8]) -> Msg {
    let mut m = Msg::default();
    m.bytes(1, value);
    m
}

/// `hbase.pb.Comparator { name = 1, serialized_comparator = 2 }`.
fn comparator(cmp: &Comparator) -> Msg {
    let mut body = Msg::default();
    let class = match cmp {
        Comparator::Binary(v) => {
            body.message(1, comparable(v));
            "BinaryComparator"
        }
        Comparator::BinaryPrefix(v) => {
            body.message(1, comparable(v));
            "BinaryPrefixComparator"
        }
        Comparator::RegexString(pattern) | Comparator::RegexStringNoCase(pattern) => {
            body.bytes(1, pattern.as_bytes());
            body.int(2, if matches!(cmp, Comparator::RegexStringNoCase(_)) { NO_CASE_FLAGS } else { 0 });
            body.bytes(3, b"UTF-8");
            body.bytes(4, b"JAVA");
            "RegexStringComparator"
        }
        Comparator::Substring(needle) => {
            // HBase lowercases the needle when it builds the comparator.
            body.bytes(1, needle.to_lowercase().as_bytes());
            "SubstringComparator"
        }
        Comparator::Long(v) => {
            body.message(1, comparable(&v.to_be_bytes()));
            "LongComparator"
        }
        Comparator::Bit(v, op) => {
            body.message(1, comparable(v));
            body.uint(
                2,
                match op {
                    BitwiseOp::And => 1,
                    BitwiseOp::Or => 2,
                    BitwiseOp::Xor => 3,
                },
            );
            "BitComparator"
        }
        Comparator::Null => "NullComparator",
        Comparator::BinaryComponent { value, offset } => {
            body.bytes(1, value);
            body.uint(2, u64::from(*offset));
            "BinaryComponentComparator"
        }
    };
    let mut m = Msg::default();
    m.bytes(1, format!("{PACKAGE}{class}").as_bytes());
    m.message(2, body);
    m
}

/// `CompareFilter { compare_op = 1, comparator = 2 }`.
fn compare_filter(op: u64, cmp: Option<&Comparator>) -> Msg {
    let mut m = Msg::default();
    m.uint(1, op);
    if let Some(cmp) = cmp {
        m.message(2, comparator(cmp));
    }
    m
}

/// A nested `hbase.pb.Filter`.
fn nested(filter: &Filter) -> Result<Msg, FilterError> {
    Ok(Msg(encode(filter)?))
}

/// The filter's Java class (without the package) and its own message.
fn message(filter: &Filter) -> Result<(&'static str, Msg), FilterError> {
    check_node(&filter.node)?;
    let mut m = Msg::default();
    let class = match &filter.node {
        Node::SingleColumnValue(s) => {
            let mut scv = Msg::default();
            scv.bytes(1, &s.family);
            scv.bytes(2, &s.qualifier);
            scv.uint(3, compare_type(s.op));
            scv.message(4, comparator(&s.cmp));
            scv.boolean(5, s.filter_if_missing);
            scv.boolean(6, s.latest_version_only);
            if s.exclude {
                m.message(1, scv);
            } else {
                m = scv;
            }
            s.class_name()
        }
        Node::Quoted(kind, value) => {
            m.bytes(1, value);
            kind.class_name()
        }
        Node::Page(size) => {
            m.int(1, *size);
            "PageFilter"
        }
        Node::MultipleColumnPrefix(prefixes) => {
            let mut sorted: Vec<_> = prefixes.iter().collect();
            sorted.sort();
            for p in sorted {
                m.bytes(1, p);
            }
            "MultipleColumnPrefixFilter"
        }
        Node::Compare(kind, op, cmp) => {
            m.message(1, compare_filter(compare_type(*op), Some(cmp)));
            kind.class_name()
        }
        Node::KeyOnly(len_as_value) => {
            m.boolean(1, *len_as_value);
            "KeyOnlyFilter"
        }
        Node::FirstKeyOnly => "FirstKeyOnlyFilter",
        Node::Timestamps(ts) => {
            // Sorted and without repeats, as HBase holds them.
            let mut ts = ts.clone();
            ts.sort_unstable();
            ts.dedup();
            if !ts.is_empty() {
                let mut packed = Msg::default();
                for t in &ts {
                    packed.varint(*t as u64);
                }
                m.message(1, packed);
            }
            m.boolean(2, false);
            "TimestampsFilter"
        }
        Node::ColumnRange(min, max) => {
            if let Some((b, _)) = min {
                m.bytes(1, b);
            }
            m.boolean(2, min.as_ref().is_none_or(|(_, inclusive)| *inclusive));
            if let Some((b, _)) = max {
                m.bytes(3, b);
            }
            m.boolean(4, max.as_ref().is_some_and(|(_, inclusive)| *inclusive));
            "ColumnRangeFilter"
        }
        Node::ColumnCountGet(limit) => {
            m.int(1, i64::from(*limit));
            "ColumnCountGetFilter"
        }
        Node::ColumnPagination(limit, start) => {
            m.int(1, i64::from(*limit));
            match start {
                PageStart::Offset(offset) => m.int(2, i64::from(*offset)),
                PageStart::Column(column) => m.bytes(3, column),
            }
            "ColumnPaginationFilter"
        }
        Node::DependentColumn(d) => {
            let (op, cmp) = match &d.value {
                Some((op, cmp)) => (compare_type(*op), Some(cmp)),
                None => (NO_OP, None),
            };
            m.message(1, compare_filter(op, cmp));
            m.bytes(2, &d.family);
            m.bytes(3, &d.qualifier);
            m.boolean(4, d.drop_dependent_column);
            "DependentColumnFilter"
        }
        Node::ColumnValue(family, qualifier, op, cmp) => {
            m.bytes(1, family);
            m.bytes(2, qualifier);
            m.uint(3, compare_type(*op));
            m.message(4, comparator(cmp));
            "ColumnValueFilter"
        }
        Node::FuzzyRow(keys) => {
            for (key, mask) in keys {
                let mut pair = Msg::default();
                pair.bytes(1, key);
                pair.bytes(2, mask);
                m.message(1, pair);
            }
            // Masks are in the public form (0 fixed, 1 any), which the v2 reading expects.
            m.boolean(2, true);
            "FuzzyRowFilter"
        }
        Node::MultiRowRange(ranges) => {
            for r in ranges {
                let mut range = Msg::default();
                range.bytes(1, &r.start);
                range.boolean(2, r.start_inclusive);
                range.bytes(3, &r.stop);
                range.boolean(4, r.stop_inclusive);
                m.message(1, range);
            }
            "MultiRowRangeFilter"
        }
        Node::RandomRow(bits) => {
            m.float(1, f32::from_bits(*bits));
            "RandomRowFilter"
        }
        Node::Raw(text) => {
            let parsed = super::parse::parse(text).map_err(|e| FilterError::RawUnparsable(Box::new(e)))?;
            return message(&parsed);
        }
        Node::List(op, members) => {
            m.uint(
                1,
                match op {
                    ListOp::All => 1,
                    ListOp::Any => 2,
                },
            );
            for member in members {
                m.message(2, nested(member)?);
            }
            "FilterList"
        }
        Node::Skip(inner) => {
            m.message(1, nested(inner)?);
            "SkipFilter"
        }
        Node::While(inner) => {
            m.message(1, nested(inner)?);
            "WhileMatchFilter"
        }
    };
    Ok((class, m))
}
