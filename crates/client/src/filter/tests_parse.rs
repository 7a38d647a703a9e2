//! Parsing: every filter of the language, precedence, errors with positions, and the
//! round trip between the typed builder and the string (proptest, both directions).

use bytes::Bytes;
use proptest::prelude::*;

use super::*;

fn p(s: &str) -> Filter {
    Filter::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn err(s: &str) -> String {
    match Filter::parse(s) {
        Ok(f) => panic!("{s:?} parsed as {f}"),
        Err(e) => e.to_string(),
    }
}

fn bin(v: &'static str) -> Comparator {
    Comparator::binary(v)
}

#[test]
fn every_filter_of_the_language() {
    use CompareOp::*;
    let b = |s: &'static str| Bytes::from_static(s.as_bytes());
    let cases: Vec<(&str, Filter)> = vec![
        ("KeyOnlyFilter()", Filter::key_only()),
        ("KeyOnlyFilter(true)", Filter::key_only_with_lengths()),
        ("KeyOnlyFilter(FALSE)", Filter::key_only()),
        ("FirstKeyOnlyFilter()", Filter::first_key_only()),
        ("PrefixFilter('a''b')", Filter::prefix("a'b")),
        ("ColumnPrefixFilter('c')", Filter::column_prefix("c")),
        ("MultipleColumnPrefixFilter('a', 'b')", Filter::multiple_column_prefix(["a", "b"])),
        ("MultipleColumnPrefixFilter()", Filter::multiple_column_prefix(Vec::<Bytes>::new())),
        ("ColumnCountGetFilter(3)", Filter::column_count_get(3)),
        ("PageFilter(0)", Filter::page(0)),
        ("PageFilter(9223372036854775807)", Filter::page(i64::MAX)),
        ("ColumnPaginationFilter(2, 1)", Filter::column_pagination(2, 1)),
        ("InclusiveStopFilter('z')", Filter::inclusive_stop("z")),
        ("TimestampsFilter(5, 007)", Filter::timestamps([5, 7])),
        ("TimestampsFilter()", Filter::timestamps([])),
        ("RowFilter(<=, 'binary:a:b')", Filter::row(LessOrEqual, bin("a:b"))),
        ("FamilyFilter(=, 'binaryprefix:f')", Filter::family(Equal, Comparator::binary_prefix("f"))),
        ("QualifierFilter(!=, 'regexstring:^q.*')", Filter::qualifier(NotEqual, Comparator::regex_string("^q.*"))),
        ("ValueFilter(=, 'substring:Ab')", Filter::value(Equal, Comparator::substring("Ab"))),
        ("ValueFilter(=, 'regexstringnocase:x+')", Filter::value(Equal, Comparator::regex_string_no_case("x+"))),
        ("ValueFilter(>, 'binary:')", Filter::value(Greater, bin(""))),
        ("ColumnRangeFilter('a', true, 'c', false)", Filter::column_range(Some((b("a"), true)), Some((b("c"), false)))),
        ("ColumnRangeFilter('', false, '', true)", Filter::column_range(None, None)),
        (
            "SingleColumnValueFilter('f', 'q', >=, 'binary:1')",
            Filter::single_column_value("f", "q", GreaterOrEqual, bin("1")).build(),
        ),
        (
            "SingleColumnValueFilter('f', 'q', =, 'binary:1', True, false)",
            Filter::single_column_value("f", "q", Equal, bin("1"))
                .filter_if_missing(true)
                .latest_version_only(false)
                .build(),
        ),
        (
            "SingleColumnValueExcludeFilter('f', 'q', <, 'binary:1', false, true)",
            Filter::single_column_value_exclude("f", "q", Less, bin("1")).build(),
        ),
        ("DependentColumnFilter('f', 'q')", Filter::dependent_column("f", "q").build()),
        (
            "DependentColumnFilter('f', 'q', true)",
            Filter::dependent_column("f", "q").drop_dependent_column(true).build(),
        ),
        (
            "DependentColumnFilter('f', 'q', false, <, 'substring:x')",
            Filter::dependent_column("f", "q").value(Less, Comparator::substring("x")).build(),
        ),
        ("ColumnValueFilter('f', 'q', >, 'binary:5')", Filter::column_value("f", "q", Greater, bin("5"))),
        ("  PrefixFilter ( 'a''b' )", Filter::prefix("a'b")),
    ];
    for (text, want) in cases {
        assert_eq!(p(text), want, "{text}");
    }
    assert_eq!(err("  PrefixFilter ( 'a' ,'b''' )"), "PrefixFilter takes 1 arguments, found 2 at position 28");
}

#[test]
fn operators_follow_hbase_precedence() {
    let (a, b, c) = (Filter::prefix("a"), Filter::key_only(), Filter::page(1));
    let (sa, sb, sc) = ("PrefixFilter('a')", "KeyOnlyFilter()", "PageFilter(1)");
    let cases = vec![
        (format!("{sa} OR {sb} AND {sc}"), a.clone().or(b.clone().and(c.clone()))),
        (format!("{sa} AND {sb} OR {sc}"), a.clone().and(b.clone()).or(c.clone())),
        (format!("({sa} OR {sb}) AND {sc}"), a.clone().or(b.clone()).and(c.clone())),
        (format!("SKIP {sa} AND {sb}"), Filter::skip(a.clone()).and(b.clone())),
        (format!("WHILE({sa} OR {sb})"), Filter::while_match(a.clone().or(b.clone()))),
        (format!("SKIP WHILE {sa}"), Filter::skip(Filter::while_match(a.clone()))),
        (format!("{sa} AND SKIP {sb}"), a.clone().and(Filter::skip(b.clone()))),
        (format!("(({sa}))AND({sb})"), a.clone().and(b.clone())),
        (format!("({sa} AND {sb}) AND {sc}"), Filter::all([a.clone(), b.clone(), c.clone()])),
        (format!("{sa}\tOR\n{sb}"), a.clone().or(b.clone())),
    ];
    for (text, want) in cases {
        assert_eq!(p(&text), want, "{text}");
    }
}

#[test]
fn errors_say_what_and_where() {
    let cases = [
        ("PrefixFilter('a'", "expected ',' or ')' at position 16"),
        ("(PrefixFilter('a') AND KeyOnlyFilter()", "expected ')' at position 38"),
        ("PrefixFilter('a') AND", "expected a filter at position 21"),
        ("PrefixFilter('a') AND ", "expected a filter at position 22"),
        ("AND PrefixFilter('a')", "expected a filter before AND at position 0"),
        ("OR", "expected a filter before OR at position 0"),
        ("PrefixFilter('a') OR AND KeyOnlyFilter()", "expected a filter before AND at position 21"),
        ("", "expected a filter at position 0"),
        ("   ", "expected a filter at position 3"),
        ("garbage", "unknown filter 'garbage' at position 0"),
        ("KeyOnlyFilter() PageFilter(1)", "expected AND, OR or the end of the filter at position 16"),
        ("PrefixFilter('a') ORPageFilter(1)", "expected AND, OR or the end of the filter at position 18"),
        ("SKIP", "expected a filter at position 4"),
        ("SKIP ", "expected a filter at position 5"),
        ("PrefixFiltr('a')", "unknown filter 'PrefixFiltr' at position 0"),
        ("PrefixFilter", "expected '(' after the filter name at position 12"),
        ("PrefixFilter('abc", "unterminated quoted string at position 13"),
        ("PrefixFilter(abc)", "argument 1 of PrefixFilter must be a quoted string at position 13"),
        ("PrefixFilter()", "PrefixFilter takes 1 arguments, found 0 at position 13"),
        ("RowFilter(=, 'bin:x')", "unknown comparator type 'bin' (the filter language has binary, binaryprefix, regexstring, regexstringnocase and substring) at position 13"),
        ("RowFilter(=, 'x')", "a comparator is written 'type:value', and this one has no ':' at position 13"),
        ("RowFilter(==, 'binary:x')", "argument 1 of RowFilter must be a compare operator (<, <=, =, !=, >=, >) at position 10"),
        ("RowFilter(=, binary:x)", "argument 2 of RowFilter must be a quoted comparator 'type:value' at position 13"),
        ("RowFilter(<, 'substring:x')", "substring comparator only supports = and != (got <) at position 0"),
        ("PageFilter('5')", "argument 1 of PageFilter must be an integer at position 11"),
        ("PageFilter(5x)", "argument 1 of PageFilter must be an integer at position 11"),
        ("PageFilter(-)", "argument 1 of PageFilter must be an integer at position 11"),
        ("PageFilter(-1)", "PageFilter size must be >= 0 (got -1) at position 0"),
        ("PageFilter(9223372036854775808)", "argument 1 of PageFilter is out of range (a 64-bit signed integer) at position 11"),
        ("ColumnCountGetFilter(2147483648)", "argument 1 of ColumnCountGetFilter is out of range (a 32-bit signed integer) at position 21"),
        ("KeyOnlyFilter(yes)", "argument 1 of KeyOnlyFilter must be true or false at position 14"),
        ("SingleColumnValueFilter('f', 'q', =, 'binary:1', true)", "SingleColumnValueFilter takes 4 or 6 arguments, found 5 at position 53"),
        ("MultipleColumnPrefixFilter('a', 'a')", "MultipleColumnPrefixFilter prefixes must be distinct at position 0"),
        ("TimestampsFilter(1, -2)", "TimestampsFilter timestamps must be >= 0 (got -2) at position 0"),
        ("PrefixFilter('a',)", "expected an argument at position 17"),
        ("PrefixFilter('a') AND (KeyOnlyFilter() OR )", "expected a filter at position 42"),
        ("PrefixFilter('a'))", "expected AND, OR or the end of the filter at position 17"),
        ("ColumnRangeFilter('a', true, 'c')", "ColumnRangeFilter takes 4 arguments, found 3 at position 32"),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), want, "{text}");
    }
    let e = Filter::parse("(PrefixFilter('a') AND KeyOnlyFilter()").unwrap_err();
    assert_eq!((e.position(), e.kind()), (38, &ParseErrorKind::Expected("')'")));
    // Non-UTF-8 bytes are fine in binary arguments, not in regex ones.
    assert_eq!(Filter::parse_bytes(b"PrefixFilter('\xff')").unwrap(), Filter::prefix(&b"\xff"[..]));
    let bad = Filter::parse_bytes(b"ValueFilter(=, 'regexstring:\xff')").unwrap_err();
    assert_eq!(bad.position(), 15);
    assert!(matches!(bad.kind(), ParseErrorKind::Invalid(FilterError::InvalidUtf8("regexstring", _))));
}

/// Leaves of the filter language with arbitrary (valid) arguments.
fn leaf() -> impl Strategy<Value = Filter> {
    let bytes = || proptest::collection::vec(any::<u8>(), 0..6).prop_map(Bytes::from);
    let nonempty = || proptest::collection::vec(any::<u8>(), 1..6).prop_map(Bytes::from);
    let text = || "[a-z'()., ]{0,5}";
    let op = || proptest::sample::select(CompareOp::ALL.to_vec());
    let eq_op = || proptest::sample::select(vec![CompareOp::Equal, CompareOp::NotEqual]);
    let cmp = move || {
        prop_oneof![
            (op(), bytes()).prop_map(|(o, b)| (o, Comparator::Binary(b))),
            (op(), bytes()).prop_map(|(o, b)| (o, Comparator::BinaryPrefix(b))),
            (eq_op(), text()).prop_map(|(o, s)| (o, Comparator::RegexString(s))),
            (eq_op(), text()).prop_map(|(o, s)| (o, Comparator::RegexStringNoCase(s))),
            (eq_op(), text()).prop_map(|(o, s)| (o, Comparator::Substring(s))),
        ]
    };
    let bound = move || proptest::option::of((nonempty(), any::<bool>()));
    prop_oneof![
        any::<bool>().prop_map(|l| if l { Filter::key_only_with_lengths() } else { Filter::key_only() }),
        Just(Filter::first_key_only()),
        bytes().prop_map(Filter::prefix),
        bytes().prop_map(Filter::column_prefix),
        bytes().prop_map(Filter::inclusive_stop),
        proptest::collection::vec(bytes(), 0..4).prop_map(Filter::multiple_column_prefix),
        (0..=i32::MAX).prop_map(Filter::column_count_get),
        (0..=i64::MAX).prop_map(Filter::page),
        (0..=i32::MAX, 0..=i32::MAX).prop_map(|(l, o)| Filter::column_pagination(l, o)),
        proptest::collection::vec(0..=i64::MAX, 0..4).prop_map(Filter::timestamps),
        cmp().prop_map(|(o, c)| Filter::row(o, c)),
        cmp().prop_map(|(o, c)| Filter::value(o, c)),
        cmp().prop_map(|(o, c)| Filter::qualifier(o, c)),
        cmp().prop_map(|(o, c)| Filter::family(o, c)),
        (bound(), bound()).prop_map(|(min, max)| Filter::column_range(min, max)),
        (bytes(), bytes(), cmp(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(f, q, (o, c), m, l, x)| {
            let scv = if x {
                Filter::single_column_value_exclude(f, q, o, c)
            } else {
                Filter::single_column_value(f, q, o, c)
            };
            scv.filter_if_missing(m).latest_version_only(l).build()
        }),
        (bytes(), bytes(), any::<bool>(), proptest::option::of(cmp())).prop_map(|(f, q, d, v)| {
            let dep = Filter::dependent_column(f, q).drop_dependent_column(d);
            match v {
                Some((o, c)) => dep.value(o, c).build(),
                None => dep.build(),
            }
        }),
        (bytes(), bytes(), cmp()).prop_map(|(f, q, (o, c))| Filter::column_value(f, q, o, c)),
    ]
}

fn tree() -> impl Strategy<Value = Filter> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Filter::all),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Filter::any),
            inner.clone().prop_map(Filter::skip),
            inner.prop_map(Filter::while_match),
        ]
    })
}

/// The filter written differently from the canonical form: redundant parentheses,
/// other whitespace, and (from `seed`) the long forms of defaults.
fn noisy(f: &Filter, seed: u64, out: &mut Vec<u8>) {
    let ws: &[u8] = match seed % 4 {
        0 => b" ",
        1 => b"  ",
        2 => b"\t",
        _ => b" \n ",
    };
    let next = seed.rotate_left(7) ^ 0x9e37_79b9_7f4a_7c15;
    if seed % 3 == 0 {
        out.extend_from_slice(b"( ");
    }
    match &f.node {
        Node::List(op, members) => {
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(ws);
                    out.extend_from_slice(op.keyword().trim().as_bytes());
                    out.extend_from_slice(ws);
                }
                out.push(b'(');
                noisy(m, next.wrapping_add(i as u64), out);
                out.push(b')');
            }
        }
        Node::Skip(inner) | Node::While(inner) => {
            out.extend_from_slice(if matches!(f.node, Node::Skip(_)) { b"SKIP" } else { b"WHILE" });
            out.extend_from_slice(ws);
            out.push(b'(');
            noisy(inner, next, out);
            out.push(b')');
        }
        Node::SingleColumnValue(s) if seed % 2 == 0 && !s.filter_if_missing && s.latest_version_only => {
            // The 6-argument form with HBase's defaults spelled out.
            let mut four = f.render().expect("valid").to_vec();
            four.pop();
            out.extend_from_slice(&four);
            out.extend_from_slice(b",FALSE,\tTrue )");
        }
        _ => out.extend_from_slice(&f.render().expect("valid")),
    }
    if seed % 3 == 0 {
        out.extend_from_slice(b" )");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Typed -> string -> typed gives the same filter, and the string is canonical.
    #[test]
    fn rendered_filters_parse_back(f in tree()) {
        let text = f.render().expect("generated filters are valid");
        let parsed = Filter::parse_bytes(&text).map_err(|e| TestCaseError::fail(format!("{e}: {f}")))?;
        prop_assert_eq!(&parsed, &f);
        prop_assert_eq!(parsed.render().expect("valid"), text);
    }

    /// String -> typed -> canonical string -> typed gives the same filter.
    #[test]
    fn parsed_strings_render_canonically(f in tree(), seed in any::<u64>()) {
        let mut text = Vec::new();
        noisy(&f, seed, &mut text);
        let parsed = Filter::parse_bytes(&text)
            .map_err(|e| TestCaseError::fail(format!("{e}: {}", String::from_utf8_lossy(&text))))?;
        prop_assert_eq!(&parsed, &f);
        let canonical = parsed.render().expect("valid");
        prop_assert_eq!(Filter::parse_bytes(&canonical).expect("canonical parses"), parsed);
    }

    /// Arbitrary input never panics, and an error points inside (or just after) it.
    #[test]
    fn arbitrary_input_is_refused_cleanly(text in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Err(e) = Filter::parse_bytes(&text) {
            prop_assert!(e.position() <= text.len());
        }
    }

    /// Mangled valid strings (a byte cut or changed) never panic either.
    #[test]
    fn mangled_filters_are_refused_cleanly(f in tree(), cut in any::<prop::sample::Index>(), b in any::<u8>()) {
        let mut text = f.render().expect("valid").to_vec();
        let i = cut.index(text.len());
        text[i] = b;
        if let Err(e) = Filter::parse_bytes(&text) {
            prop_assert!(e.position() <= text.len());
        }
        text.truncate(i);
        if let Err(e) = Filter::parse_bytes(&text) {
            prop_assert!(e.position() <= text.len());
        }
    }
}
