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
        (f.clone().filter_if_missing(true).into(), b"SingleColumnValueFilter('cf', 'q', >=, 'binary:10', true, true)"),
        (f.latest_version_only(false).build(), b"SingleColumnValueFilter('cf', 'q', >=, 'binary:10', false, false)"),
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
        (Filter::value(CompareOp::LessOrEqual, Comparator::binary_prefix("p")), b"ValueFilter(<=, 'binaryprefix:p')"),
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
        let f = Filter::single_column_value(v.to_vec(), v.to_vec(), CompareOp::Equal, Comparator::binary(v.to_vec()));
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
    assert_eq!(Filter::page(-1).to_string(), "<invalid filter: PageFilter size must be >= 0 (got -1)>");
    assert_eq!(CompareOp::NotEqual.to_string(), "!=");
}
