//! The protobuf form against HBase 2.6.1's own: `testdata/filter-protobuf-golden.txt`
//! holds what `ProtobufUtil.toFilter(filter).toByteArray()` gives in HBase's Java client
//! for each case (written by `testdata/FilterProtobufGolden.java`, run on the test bed's
//! classpath).

use super::*;
use crate::filter::{filter_string, RowRange};

const GOLDEN: &str = include_str!("testdata/filter-protobuf-golden.txt");

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The typed filters of the golden cases outside the filter language.
fn typed(label: &str) -> Option<Filter> {
    use CompareOp::{Equal, Greater};
    let f = match label {
        "long" => Filter::value(Greater, Comparator::long(-2)),
        "bit" => Filter::value(Equal, Comparator::bit(vec![2u8], BitwiseOp::Xor)),
        "null" => Filter::value(Equal, Comparator::null()),
        "component" => Filter::value(Equal, Comparator::binary_component(vec![7u8], 3)),
        "pagefrom" => Filter::column_pagination_from(2, "q2"),
        "fuzzy" => Filter::fuzzy_row([("r01", vec![0u8, 1, 0])]),
        "ranges" => Filter::multi_row_range([RowRange::new("a", true, "c", false)]),
        "random" => Filter::random_row(0.25),
        _ => return None,
    };
    Some(f)
}

#[test]
fn protobuf_matches_the_java_client_byte_for_byte() {
    let mut checked = 0;
    for line in GOLDEN.lines().filter(|l| !l.trim().is_empty()) {
        let (label, want) = line.rsplit_once(' ').expect("label and hex");
        let filter = match typed(label) {
            Some(f) => f,
            None => Filter::parse(label).unwrap_or_else(|e| panic!("{label}: {e}")),
        };
        assert_eq!(hex(&encode(&filter).expect("encodes")), want, "{label}");
        checked += 1;
    }
    assert_eq!(checked, 29);
}

#[test]
fn protobuf_is_used_only_outside_the_language() {
    let language = Filter::prefix("a").and(Filter::value(CompareOp::Equal, Comparator::binary("x")));
    assert!(language.in_filter_language());
    assert_eq!(filter_bytes(Some(&language)).expect("valid"), None);
    assert!(filter_string(Some(&language)).expect("valid").is_some());
    let outside = language.and(Filter::value(CompareOp::Equal, Comparator::long(1)));
    assert!(!outside.in_filter_language());
    assert_eq!(outside.render(), Err(FilterError::NotInFilterLanguage("LongComparator")));
    assert_eq!(filter_string(Some(&outside)).expect("valid"), None);
    assert_eq!(filter_bytes(Some(&outside)).expect("valid"), Some(encode(&outside).expect("valid").to_vec()));
    // Invalid arguments are refused in both forms.
    let bad = Filter::fuzzy_row([("ab", vec![0u8])]);
    assert_eq!(encode(&bad), Err(FilterError::FuzzyLengthMismatch { key: 2, mask: 1 }));
    assert!(filter_string(Some(&bad)).is_err());
    assert_eq!(encode(&Filter::fuzzy_row([("a", vec![2u8])])), Err(FilterError::FuzzyMaskByte(2)));
    assert_eq!(encode(&Filter::multi_row_range([])), Err(FilterError::EmptyRowRanges));
    let inverted = Filter::multi_row_range([RowRange::new("b", true, "a", false)]);
    assert_eq!(encode(&inverted), Err(FilterError::InvertedRowRange));
    assert_eq!(encode(&Filter::column_pagination(-1, 0)), Err(FilterError::NegativeColumnPagination("limit", -1)));
    let range = || Filter::multi_row_range([RowRange::new("a", true, "b", false)]);
    let skipped = Filter::skip(Filter::prefix("a").or(range()));
    assert_eq!(encode(&skipped), Err(FilterError::UnsupportedUnderSkip("MultiRowRangeFilter")));
    assert!(filter_string(Some(&skipped)).is_err());
    assert!(encode(&Filter::while_match(range()).and(Filter::skip(Filter::key_only()))).is_ok());
    // A raw string is parsed to be serialized.
    let raw = Filter::raw("PrefixFilter('a')").and(Filter::random_row(0.5));
    let parsed = Filter::prefix("a").and(Filter::random_row(0.5));
    assert_eq!(encode(&raw), encode(&parsed));
    let unparsable = Filter::raw("Nope()").and(Filter::random_row(0.5));
    assert!(matches!(encode(&unparsable), Err(FilterError::RawUnparsable(_))));
    // Display shows the protobuf-only parts readably.
    assert_eq!(outside.to_string(), "PrefixFilter('a') AND ValueFilter(=, 'binary:x') AND ValueFilter(=, 'long:1')");
}
