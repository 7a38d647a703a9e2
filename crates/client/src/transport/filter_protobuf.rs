//! The serialized protobuf form of a [`Filter`]: HBase's `hbase.pb.Filter` (`Filter.proto`,
//! `Comparator.proto`, the messages generated in `basalt-rpc-protocol`), as
//! `ProtobufUtil.toFilter` writes it. Both transports carry it: native RPC in every
//! `Scan`/`Get`, the Thrift2 gateway as `filterBytes` for filters outside HBase's filter
//! language. Byte for byte what HBase 2.6.1's Java client writes (checked against its
//! output in the tests). The filter model and its checks stay in [`crate::filter`].

use basalt_rpc_protocol::pb;
use bytes::Bytes;
use prost::Message;

use crate::filter::{
    BitwiseOp, Comparator, CompareKind, CompareOp, Filter, FilterError, ListOp, Node, PageStart, QuotedKind,
    SingleColumnValue,
};

/// Java package of HBase's filters and comparators (the `name` of `hbase.pb.Filter`).
const PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// The bytes for `filterBytes`: `Some` for a filter outside the filter language (which
/// then goes only this way), `None` when it goes as `filterString`.
pub(crate) fn filter_bytes(filter: Option<&Filter>) -> Result<Option<Vec<u8>>, FilterError> {
    match filter {
        Some(f) if !f.in_filter_language() => Ok(Some(message(f)?.encode_to_vec())),
        Some(_) | None => Ok(None),
    }
}

/// The serialized `hbase.pb.Filter` (HBase's `ProtobufUtil.toFilter`), after the checks
/// HBase's constructors make ([`Filter::validate`]): what native RPC sends, and what
/// Thrift2's `filterBytes` carries. Works for every filter, including those of the
/// filter language.
///
/// ```
/// use basalt::transport::filter_protobuf;
/// use basalt::Filter;
/// let bytes = filter_protobuf::encode(&Filter::prefix("row-"))?;
/// assert!(bytes.ends_with(b"row-"));
/// # Ok::<(), basalt::filter::FilterError>(())
/// ```
pub fn encode(filter: &Filter) -> Result<Bytes, FilterError> {
    Ok(message(filter)?.encode_to_vec().into())
}

/// `hbase.pb.Filter` as a message (what native RPC's `Scan` and `Get` hold), after the
/// checks HBase's constructors make ([`Filter::validate`]).
pub(crate) fn message(filter: &Filter) -> Result<pb::Filter, FilterError> {
    filter.validate()?;
    to_pb(filter)
}

/// `name` = the Java class, `serialized_*` = its own message.
fn filter_pb(class: &str, body: impl Message) -> pb::Filter {
    pb::Filter { name: format!("{PACKAGE}{class}"), serialized_filter: Some(body.encode_to_vec().into()) }
}

fn comparator_pb(class: &str, body: impl Message) -> pb::Comparator {
    pb::Comparator { name: format!("{PACKAGE}{class}"), serialized_comparator: Some(body.encode_to_vec().into()) }
}

/// `op` as `hbase.pb.CompareType` (filters and check-and-mutate conditions alike).
pub(crate) fn compare_type(op: CompareOp) -> pb::CompareType {
    match op {
        CompareOp::Less => pb::CompareType::Less,
        CompareOp::LessOrEqual => pb::CompareType::LessOrEqual,
        CompareOp::Equal => pb::CompareType::Equal,
        CompareOp::NotEqual => pb::CompareType::NotEqual,
        CompareOp::GreaterOrEqual => pb::CompareType::GreaterOrEqual,
        CompareOp::Greater => pb::CompareType::Greater,
    }
}

/// Java's `Pattern.DOTALL`, the flags of `regexstring:` (HBase's `RegexStringComparator(String)`).
const REGEX_FLAGS: i32 = 0x20;
/// Java's `Pattern.CASE_INSENSITIVE | Pattern.DOTALL`, what `regexstringnocase:` sets.
const NO_CASE_FLAGS: i32 = 0x02 | 0x20;

fn comparable(value: &[u8]) -> pb::ByteArrayComparable {
    pb::ByteArrayComparable { value: Some(Bytes::copy_from_slice(value)) }
}

fn comparator(cmp: &Comparator) -> pb::Comparator {
    match cmp {
        Comparator::Binary(v) => comparator_pb("BinaryComparator", pb::BinaryComparator { comparable: comparable(v) }),
        Comparator::BinaryPrefix(v) => {
            comparator_pb("BinaryPrefixComparator", pb::BinaryPrefixComparator { comparable: comparable(v) })
        }
        Comparator::RegexString(pattern) | Comparator::RegexStringNoCase(pattern) => {
            let flags = if matches!(cmp, Comparator::RegexStringNoCase(_)) { NO_CASE_FLAGS } else { REGEX_FLAGS };
            let body = pb::RegexStringComparator {
                pattern: pattern.clone(),
                pattern_flags: flags,
                charset: "UTF-8".to_owned(),
                engine: Some("JAVA".to_owned()),
            };
            comparator_pb("RegexStringComparator", body)
        }
        // HBase lowercases the needle when it builds the comparator.
        Comparator::Substring(needle) => {
            comparator_pb("SubstringComparator", pb::SubstringComparator { substr: needle.to_lowercase() })
        }
        Comparator::Long(v) => {
            comparator_pb("LongComparator", pb::LongComparator { comparable: comparable(&v.to_be_bytes()) })
        }
        Comparator::Bit(v, op) => {
            let op = match op {
                BitwiseOp::And => pb::bit_comparator::BitwiseOp::And,
                BitwiseOp::Or => pb::bit_comparator::BitwiseOp::Or,
                BitwiseOp::Xor => pb::bit_comparator::BitwiseOp::Xor,
            };
            comparator_pb("BitComparator", pb::BitComparator { comparable: comparable(v), bitwise_op: op as i32 })
        }
        Comparator::Null => comparator_pb("NullComparator", pb::NullComparator {}),
        Comparator::BinaryComponent { value, offset } => comparator_pb(
            "BinaryComponentComparator",
            pb::BinaryComponentComparator { value: value.clone(), offset: *offset },
        ),
    }
}

fn compare_filter(op: CompareOp, cmp: &Comparator) -> pb::CompareFilter {
    pb::CompareFilter { compare_op: compare_type(op) as i32, comparator: Some(comparator(cmp)) }
}

fn single_column_value(s: &SingleColumnValue) -> pb::SingleColumnValueFilter {
    pb::SingleColumnValueFilter {
        column_family: Some(s.family.clone()),
        column_qualifier: Some(s.qualifier.clone()),
        compare_op: compare_type(s.op) as i32,
        comparator: comparator(&s.cmp),
        filter_if_missing: Some(s.filter_if_missing),
        latest_version_only: Some(s.latest_version_only),
    }
}

/// The filter as `hbase.pb.Filter` (checked by the caller); fails only on a raw string
/// that does not parse.
fn to_pb(filter: &Filter) -> Result<pb::Filter, FilterError> {
    let out = match &filter.node {
        Node::SingleColumnValue(s) if s.exclude => filter_pb(
            s.class_name(),
            pb::SingleColumnValueExcludeFilter { single_column_value_filter: single_column_value(s) },
        ),
        Node::SingleColumnValue(s) => filter_pb(s.class_name(), single_column_value(s)),
        Node::Quoted(kind, value) => {
            let class = kind.class_name();
            match kind {
                QuotedKind::Prefix => filter_pb(class, pb::PrefixFilter { prefix: Some(value.clone()) }),
                QuotedKind::ColumnPrefix => filter_pb(class, pb::ColumnPrefixFilter { prefix: value.clone() }),
                QuotedKind::InclusiveStop => {
                    filter_pb(class, pb::InclusiveStopFilter { stop_row_key: Some(value.clone()) })
                }
            }
        }
        Node::Page(size) => filter_pb("PageFilter", pb::PageFilter { page_size: *size }),
        Node::MultipleColumnPrefix(prefixes) => {
            let mut sorted_prefixes = prefixes.clone();
            sorted_prefixes.sort();
            filter_pb("MultipleColumnPrefixFilter", pb::MultipleColumnPrefixFilter { sorted_prefixes })
        }
        Node::Compare(kind, op, cmp) => {
            let compare_filter = compare_filter(*op, cmp);
            let class = kind.class_name();
            match kind {
                CompareKind::Row => filter_pb(class, pb::RowFilter { compare_filter }),
                CompareKind::Value => filter_pb(class, pb::ValueFilter { compare_filter }),
                CompareKind::Qualifier => filter_pb(class, pb::QualifierFilter { compare_filter }),
                CompareKind::Family => filter_pb(class, pb::FamilyFilter { compare_filter }),
            }
        }
        Node::KeyOnly(len_as_val) => filter_pb("KeyOnlyFilter", pb::KeyOnlyFilter { len_as_val: *len_as_val }),
        Node::FirstKeyOnly => filter_pb("FirstKeyOnlyFilter", pb::FirstKeyOnlyFilter {}),
        Node::Timestamps(ts) => {
            // Sorted and without repeats, as HBase holds them.
            let mut timestamps = ts.clone();
            timestamps.sort_unstable();
            timestamps.dedup();
            filter_pb("TimestampsFilter", pb::TimestampsFilter { timestamps, can_hint: Some(false) })
        }
        Node::ColumnRange(min, max) => filter_pb(
            "ColumnRangeFilter",
            pb::ColumnRangeFilter {
                min_column: min.as_ref().map(|(b, _)| b.clone()),
                min_column_inclusive: Some(min.as_ref().is_none_or(|(_, inclusive)| *inclusive)),
                max_column: max.as_ref().map(|(b, _)| b.clone()),
                max_column_inclusive: Some(max.as_ref().is_some_and(|(_, inclusive)| *inclusive)),
            },
        ),
        Node::ColumnCountGet(limit) => filter_pb("ColumnCountGetFilter", pb::ColumnCountGetFilter { limit: *limit }),
        Node::ColumnPagination(limit, start) => {
            let (offset, column_offset) = match start {
                PageStart::Offset(offset) => (Some(*offset), None),
                PageStart::Column(column) => (None, Some(column.clone())),
            };
            filter_pb("ColumnPaginationFilter", pb::ColumnPaginationFilter { limit: *limit, offset, column_offset })
        }
        Node::DependentColumn(d) => {
            let compare_filter = match &d.value {
                Some((op, cmp)) => compare_filter(*op, cmp),
                None => pb::CompareFilter { compare_op: pb::CompareType::NoOp as i32, comparator: None },
            };
            let body = pb::DependentColumnFilter {
                compare_filter,
                column_family: Some(d.family.clone()),
                column_qualifier: Some(d.qualifier.clone()),
                drop_dependent_column: Some(d.drop_dependent_column),
            };
            filter_pb("DependentColumnFilter", body)
        }
        Node::ColumnValue(family, qualifier, op, cmp) => {
            let body = pb::ColumnValueFilter {
                family: family.clone(),
                qualifier: qualifier.clone(),
                compare_op: compare_type(*op) as i32,
                comparator: comparator(cmp),
            };
            filter_pb("ColumnValueFilter", body)
        }
        Node::FuzzyRow(keys) => {
            let fuzzy_keys_data = keys
                .iter()
                .map(|(key, mask)| pb::BytesBytesPair { first: key.clone(), second: mask.clone() })
                .collect();
            // Masks are in the public form (0 fixed, 1 any), which the v2 reading expects.
            filter_pb("FuzzyRowFilter", pb::FuzzyRowFilter { fuzzy_keys_data, is_mask_v2: Some(true) })
        }
        Node::MultiRowRange(ranges) => {
            let row_range_list = ranges
                .iter()
                .map(|r| pb::RowRange {
                    start_row: Some(r.start.clone()),
                    start_row_inclusive: Some(r.start_inclusive),
                    stop_row: Some(r.stop.clone()),
                    stop_row_inclusive: Some(r.stop_inclusive),
                })
                .collect();
            filter_pb("MultiRowRangeFilter", pb::MultiRowRangeFilter { row_range_list })
        }
        Node::RandomRow(bits) => filter_pb("RandomRowFilter", pb::RandomRowFilter { chance: f32::from_bits(*bits) }),
        Node::Raw(text) => {
            let parsed = Filter::parse_bytes(text).map_err(|e| FilterError::RawUnparsable(Box::new(e)))?;
            to_pb(&parsed)?
        }
        Node::List(op, members) => {
            let operator = match op {
                ListOp::All => pb::filter_list::Operator::MustPassAll,
                ListOp::Any => pb::filter_list::Operator::MustPassOne,
            };
            let filters = members.iter().map(to_pb).collect::<Result<Vec<_>, _>>()?;
            filter_pb("FilterList", pb::FilterList { operator: operator as i32, filters })
        }
        Node::Skip(inner) => filter_pb("SkipFilter", pb::SkipFilter { filter: to_pb(inner)? }),
        Node::While(inner) => filter_pb("WhileMatchFilter", pb::WhileMatchFilter { filter: to_pb(inner)? }),
    };
    Ok(out)
}

#[cfg(test)]
#[path = "filter_protobuf_tests.rs"]
mod tests;
