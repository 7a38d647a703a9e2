//! The protobuf form against HBase 2.6.1's own: `testdata/protobuf-golden.txt` holds what
//! `ProtobufUtil.toFilter(filter).toByteArray()` gives in HBase's Java client for each
//! case (written by `testdata/ProtobufGolden.java`, run on the test bed's classpath).

use super::*;

const GOLDEN: &str = include_str!("testdata/protobuf-golden.txt");

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
        assert_eq!(hex(&filter.to_protobuf().expect("encodes")), want, "{label}");
        checked += 1;
    }
    assert_eq!(checked, 29);
}

#[test]
fn protobuf_is_used_only_outside_the_language() {
    let language = Filter::prefix("a").and(Filter::value(CompareOp::Equal, Comparator::binary("x")));
    assert!(language.in_filter_language());
    assert_eq!(filter_bytes(Some(&language)).expect("valid"), None);
    assert!(render::filter_string(Some(&language)).expect("valid").is_some());
    let outside = language.and(Filter::value(CompareOp::Equal, Comparator::long(1)));
    assert!(!outside.in_filter_language());
    assert_eq!(outside.render(), Err(FilterError::NotInFilterLanguage("LongComparator")));
    assert_eq!(render::filter_string(Some(&outside)).expect("valid"), None);
    assert_eq!(filter_bytes(Some(&outside)).expect("valid"), Some(outside.to_protobuf().expect("valid").to_vec()));
    // Invalid arguments are refused in both forms.
    let bad = Filter::fuzzy_row([("ab", vec![0u8])]);
    assert_eq!(bad.to_protobuf(), Err(FilterError::FuzzyLengthMismatch { key: 2, mask: 1 }));
    assert!(render::filter_string(Some(&bad)).is_err());
    assert_eq!(Filter::fuzzy_row([("a", vec![2u8])]).to_protobuf(), Err(FilterError::FuzzyMaskByte(2)));
    assert_eq!(Filter::multi_row_range([]).to_protobuf(), Err(FilterError::EmptyRowRanges));
    let inverted = Filter::multi_row_range([RowRange::new("b", true, "a", false)]);
    assert_eq!(inverted.to_protobuf(), Err(FilterError::InvertedRowRange));
    assert_eq!(Filter::column_pagination(-1, 0).to_protobuf(), Err(FilterError::NegativeColumnPagination("limit", -1)));
    let range = || Filter::multi_row_range([RowRange::new("a", true, "b", false)]);
    let skipped = Filter::skip(Filter::prefix("a").or(range()));
    assert_eq!(skipped.to_protobuf(), Err(FilterError::UnsupportedUnderSkip("MultiRowRangeFilter")));
    assert!(render::filter_string(Some(&skipped)).is_err());
    assert!(Filter::while_match(range()).and(Filter::skip(Filter::key_only())).to_protobuf().is_ok());
    // A raw string is parsed to be serialized.
    let raw = Filter::raw("PrefixFilter('a')").and(Filter::random_row(0.5));
    let parsed = Filter::prefix("a").and(Filter::random_row(0.5));
    assert_eq!(raw.to_protobuf(), parsed.to_protobuf());
    let unparsable = Filter::raw("Nope()").and(Filter::random_row(0.5));
    assert!(matches!(unparsable.to_protobuf(), Err(FilterError::RawUnparsable(_))));
    // Display shows the protobuf-only parts readably.
    assert_eq!(outside.to_string(), "PrefixFilter('a') AND ValueFilter(=, 'binary:x') AND ValueFilter(=, 'long:1')");
}

#[test]
fn row_level_filters_and_essential_families() {
    let scv = Filter::single_column_value("a", "q", CompareOp::Equal, Comparator::binary("v"));
    let cases = [
        (Filter::page(1), true),
        (scv.clone().build(), true),
        (Filter::single_column_value_exclude("a", "q", CompareOp::Equal, Comparator::binary("v")).build(), true),
        (Filter::skip(Filter::key_only()), true),
        (Filter::while_match(Filter::key_only()), true),
        (Filter::dependent_column("a", "q").build(), true),
        (Filter::random_row(0.5), true),
        (Filter::prefix("a").or(Filter::page(1)), true),
        (Filter::raw("KeyOnlyFilter() AND PageFilter(1)"), true),
        (Filter::prefix("a").and(Filter::key_only()), false),
        (Filter::column_value("a", "q", CompareOp::Equal, Comparator::binary("v")), false),
        (Filter::fuzzy_row([("a", vec![0u8])]), false),
        (Filter::raw("garbage"), false),
    ];
    for (f, row_level) in cases {
        assert_eq!(f.has_filter_row(), row_level, "{f}");
    }
    let spanning = [
        (Filter::page(1), Some("PageFilter")),
        (Filter::prefix("a").and(Filter::skip(Filter::while_match(Filter::key_only()))), Some("WhileMatchFilter")),
        (Filter::raw("ColumnCountGetFilter(2)"), Some("ColumnCountGetFilter")),
        (Filter::inclusive_stop("z").or(Filter::multi_row_range([RowRange::new("a", true, "b", false)])), None),
    ];
    for (f, class) in spanning {
        assert_eq!(f.scan_spanning_filter(), class, "{f}");
    }
    let missing = scv.clone().filter_if_missing(true).build();
    assert!(missing.is_family_essential(b"a") && !missing.is_family_essential(b"b"));
    assert!(scv.build().is_family_essential(b"b"));
    assert!(missing.clone().and(Filter::prefix("x")).is_family_essential(b"b"));
    assert!(!missing
        .clone()
        .or(Filter::column_value("c", "q", CompareOp::Equal, Comparator::null()))
        .is_family_essential(b"b"));
    assert!(!Filter::skip(missing.clone()).is_family_essential(b"b"));
    let check = |f: &Filter, batch, reversed, families: &[&[u8]]| check_scan_filter(f, batch, reversed, families);
    assert_eq!(
        check(&Filter::page(2), Some(3), false, &[]),
        Err(FilterError::RowFilterWithBatch { filter: "PageFilter", batch: 3 })
    );
    assert_eq!(check(&Filter::page(2), None, false, &[]), Ok(()));
    assert_eq!(check(&Filter::prefix("a"), Some(3), true, &[b"a", b"b"]), Ok(()));
    assert_eq!(
        check(&missing, None, true, &[b"a", b"b"]),
        Err(FilterError::ReversedOnDemand { filter: "SingleColumnValueFilter", family: Bytes::from("b") })
    );
    assert_eq!(check(&missing, None, false, &[b"a", b"b"]), Ok(()));
    assert_eq!(check(&missing, None, true, &[b"a"]), Ok(()));
    // Naming no family: HBase decides with the table's families.
    assert_eq!(check(&missing, None, true, &[]), Ok(()));
}
