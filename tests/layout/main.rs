//! The workspace's layout, read from its sources: no crate's files import each other in
//! a loop, the client's core speaks to HBase only through its `transport/` folder, and
//! the client's scan engine keeps to the layers its documentation draws.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use basalt_integration::import_graph::{crate_graph, external_references, Graph};

/// The workspace's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the workspace").to_path_buf()
}

/// Every crate's `src/` (the crates under `crates/`, the benches, this test crate).
fn crate_sources() -> Vec<(String, PathBuf)> {
    let root = workspace();
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let dir = entry.expect("a directory entry").path();
        if dir.join("src").is_dir() {
            let name = dir.file_name().expect("a name").to_string_lossy().into_owned();
            out.push((name, dir.join("src")));
        }
    }
    out.push(("benches".to_owned(), root.join("benches/src")));
    out.push(("tests".to_owned(), root.join("tests/src")));
    out.retain(|(_, src)| src.is_dir());
    out.sort();
    assert!(out.len() >= 12, "expected the workspace's crates, found {out:?}");
    out
}

/// The graph of files of the crate in `crates/NAME`.
fn graph_of(name: &str) -> Graph {
    let graph = crate_graph(&workspace().join("crates").join(name).join("src"));
    assert!(graph.edges.values().map(BTreeMap::len).sum::<usize>() > 10, "too few imports found in {name}: {graph:?}");
    graph
}

#[test]
fn no_crates_files_or_modules_import_each_other_in_a_loop() {
    let mut loops = Vec::new();
    for (name, src) in crate_sources() {
        let graph = crate_graph(&src);
        for cycle in graph.cycles() {
            loops.push(format!("{name}, files: {cycle}"));
        }
        for cycle in graph.by_module().cycles() {
            loops.push(format!("{name}, modules: {cycle}"));
        }
    }
    assert!(loops.is_empty(), "import loops:\n{}", loops.join("\n"));
}

/// The transport crates: only the client's `transport/` folder may name them.
const TRANSPORT_CRATES: &[&str] = &["basalt_thrift", "basalt_thrift_protocol", "basalt_rpc", "basalt_rpc_protocol"];

/// Files outside `transport/` that still name a transport crate, and why: the moves
/// that are left (each entry fails the test once its file no longer needs it).
const KNOWN_TRANSPORT_IMPORTS: &[(&str, &str)] = &[];

#[test]
fn the_clients_core_names_no_transport_crate() {
    let src = workspace().join("crates/client/src");
    let mut outside = BTreeSet::new();
    let mut wrong = Vec::new();
    for krate in TRANSPORT_CRATES {
        for (file, path) in external_references(&src, krate) {
            if file.starts_with("transport/") {
                continue;
            }
            outside.insert(file.clone());
            if !KNOWN_TRANSPORT_IMPORTS.iter().any(|(known, _)| *known == file) {
                wrong.push(format!("{file}: {path}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the client's core names a transport crate (move it under transport/):\n{}",
        wrong.join("\n")
    );
    for (known, _) in KNOWN_TRANSPORT_IMPORTS {
        assert!(
            outside.contains(*known),
            "{known} no longer names a transport crate: remove it from KNOWN_TRANSPORT_IMPORTS"
        );
    }
    // The check sees the transports' own imports, so it can fail.
    assert!(!external_references(&src.join("transport"), "basalt_thrift").is_empty());
}

/// What each file of the scan engine may import from the crate (the table in
/// `scan/mod.rs`'s documentation).
const SCAN_LAYOUT: &[(&str, &[&str])] = &[
    ("scan/spec.rs", &["error.rs", "filter/", "options.rs", "request/"]),
    ("scan/plan.rs", &[]),
    ("scan/key_order.rs", &[]),
    (
        "scan/position.rs",
        &["scan/key_order.rs", "scan/spec.rs", "error.rs", "filter/", "row.rs", "transport/mod.rs", "validate.rs"],
    ),
    ("scan/stats.rs", &[]),
    (
        "scan/worker.rs",
        &[
            "scan/plan.rs",
            "scan/position.rs",
            "scan/spec.rs",
            "scan/stats.rs",
            "attempt.rs",
            "error.rs",
            "metrics.rs",
            "operation.rs",
            "row.rs",
            "transport/mod.rs",
        ],
    ),
    (
        "scan/regions.rs",
        &[
            "scan/plan.rs",
            "scan/position.rs",
            "scan/spec.rs",
            "scan/stats.rs",
            "scan/worker.rs",
            "attempt.rs",
            "error.rs",
            "operation.rs",
            "region.rs",
            "row.rs",
            "transport/mod.rs",
        ],
    ),
    (
        "scan/stream.rs",
        &[
            "scan/plan.rs",
            "scan/regions.rs",
            "scan/spec.rs",
            "scan/stats.rs",
            "scan/worker.rs",
            "attempt.rs",
            "error.rs",
            "row.rs",
        ],
    ),
];

#[test]
fn the_clients_scan_engine_imports_only_what_its_layout_allows() {
    let graph = graph_of("client");
    let mut wrong = Vec::new();
    for (file, allowed) in SCAN_LAYOUT {
        for (to, why) in graph.edges.get(*file).into_iter().flatten() {
            let allowed = allowed.iter().any(|a| to == a || (a.ends_with('/') && to.starts_with(a)));
            if !allowed {
                wrong.push(format!("{file} -[{why}]-> {to}"));
            }
        }
    }
    assert!(wrong.is_empty(), "imports outside the scan engine's layout:\n{}", wrong.join("\n"));
    let listed: BTreeSet<&str> = SCAN_LAYOUT.iter().map(|(f, _)| *f).collect();
    let engine: Vec<&String> = graph
        .edges
        .keys()
        .filter(|f| f.starts_with("scan/") && *f != "scan/mod.rs" && !listed.contains(f.as_str()))
        .collect();
    assert!(engine.is_empty(), "scan engine files missing from SCAN_LAYOUT: {engine:?}");
}
