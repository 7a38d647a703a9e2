//! What a filter means for a scan: row-level filters, filters spanning rows, the families
//! it needs, and the scan options HBase refuses with it.

use super::*;

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
