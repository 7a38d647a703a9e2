//! The import graph of a crate's files, for the layout test (`tests/layout/`).
//!
//! [`crate_graph`] reads `src/**/*.rs`, collects every `crate::`, `super::` and `self::` path (in
//! `use` declarations and inline), resolves each to the file that defines the item
//! (following `use` re-exports), and fails naming every cycle of the resulting graph
//! of files ([`Graph::cycles`]); [`external_references`] lists the paths into another
//! crate that each file writes.
//!
//! What is left out, and why:
//! - comments (intra-doc links are not dependencies), and string and char literals;
//! - items under `#[cfg(test)]` (inline test modules, test-only files): tests may use
//!   anything;
//! - edges from a directory module's `mod.rs` (or `lib.rs`, or `x.rs` beside `x/`) to its own children: the
//!   parent is the face of the directory and composes its children; a child may use
//!   the face (`super::`), and siblings must not form a loop.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root (`[]` is `lib.rs`).
type ModPath = Vec<String>;

/// One source file of the crate.
#[derive(Debug)]
struct SourceFile {
    /// The file's name relative to `src/`.
    name: String,
    /// Its module path.
    module: ModPath,
    /// Whether it is a `mod.rs` / `lib.rs` (the face of a directory module).
    is_face: bool,
    /// Its text without comments, literals and `#[cfg(test)]` items.
    code: String,
}

/// A graph of files: `edges[from][to]` = one reference that makes the edge.
#[derive(Debug, Default)]
pub struct Graph {
    /// Per file (or module), the files it imports, each with one reference that does.
    pub edges: BTreeMap<String, BTreeMap<String, String>>,
}

/// Reads every `.rs` file under `src`.
pub fn read_sources(src: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::from(src)];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                let name = path.strip_prefix(src).expect("under src").to_string_lossy().replace('\\', "/");
                out.push((name, text));
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file named relative to `src/`.
fn module_of(name: &str) -> (ModPath, bool) {
    let parts: Vec<&str> = name.trim_end_matches(".rs").split('/').collect();
    match parts.split_last() {
        Some((&"lib", [])) => (Vec::new(), true),
        Some((&"mod", dirs)) => (dirs.iter().map(|s| (*s).to_owned()).collect(), true),
        _ => (parts.iter().map(|s| (*s).to_owned()).collect(), false),
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` without comments and with string and char literals emptied.
fn strip_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && (at(i + 1) == '"' || at(i + 1) == '#')
            && (i == 0 || !is_ident(chars[i - 1]) || chars[i - 1] == 'b')
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (at(i + 1) == '\\' || (at(i + 2) == '\'' && at(i + 1) != '\'')) {
            // A char literal ('a', '\n', '\u{..}'); a lifetime ('a) is kept.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Removes `#[cfg(test)]` items from code; returns the code and the names of the
/// test-only child modules it declares (`#[cfg(test)] mod name;`).
fn strip_test_items(code: &str) -> (String, Vec<String>) {
    let compact = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let bytes: Vec<char> = code.chars().collect();
    let mut out = String::new();
    let mut test_modules = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == '#' {
            if let Some(end) = attribute_end(&bytes, i) {
                let attr: String = bytes[i..end].iter().collect();
                if compact(&attr) == "#[cfg(test)]" {
                    let item_end = item_end(&bytes, end);
                    let item: String = bytes[end..item_end].iter().collect();
                    let words: Vec<&str> = item.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty()).collect();
                    if let Some(pos) = words.iter().position(|w| *w == "mod") {
                        if item.trim_end().ends_with(';') {
                            if let Some(name) = words.get(pos + 1) {
                                test_modules.push((*name).to_owned());
                            }
                        }
                    }
                    i = item_end;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    (out, test_modules)
}

/// The end (exclusive) of the attribute `#[...]` starting at `start`.
fn attribute_end(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    if chars.get(i) != Some(&'[') {
        return None;
    }
    let mut depth = 0;
    while i < chars.len() {
        match chars[i] {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The end (exclusive) of the item starting at `start` (after its attributes): its
/// first `;` outside brackets, or its closing brace.
fn item_end(chars: &[char], start: usize) -> usize {
    let mut i = start;
    // Further attributes of the same item.
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        match (chars.get(i), attribute_end(chars, i)) {
            (Some('#'), Some(end)) => i = end,
            _ => break,
        }
    }
    let mut depth = 0i32;
    while i < chars.len() {
        match chars[i] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ';' if depth == 0 => return i + 1,
            '{' => {
                let mut braces = 0;
                while i < chars.len() {
                    match chars[i] {
                        '{' => braces += 1,
                        '}' => {
                            braces -= 1;
                            if braces == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The leaves of a use tree (`a::{b, c::{d as e, self}}`): each path and the name it
/// binds (`None` for globs and `_`).
fn use_leaves(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, Option<String>)>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head: Vec<String> =
                tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect();
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let base: Vec<String> = prefix.iter().cloned().chain(head).collect();
            let mut depth = 0;
            let mut from = 0;
            let mut parts = Vec::new();
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        parts.push(&inner[from..i]);
                        from = i + 1;
                    }
                    _ => {}
                }
            }
            parts.push(&inner[from..]);
            for part in parts.into_iter().filter(|p| !p.trim().is_empty()) {
                walk(&base, part, out);
            }
            return;
        }
        let (path, alias) = match tree.split_once(" as ") {
            Some((path, alias)) => (path.trim(), Some(alias.trim())),
            None => (tree, None),
        };
        let mut segments: Vec<String> = prefix.to_vec();
        segments.extend(path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
        if segments.last().is_some_and(|s| s == "self") {
            segments.pop();
        }
        let bound = match alias {
            Some("_") => None,
            Some(alias) => Some(alias.to_owned()),
            None if path.ends_with('*') => None,
            None => segments.last().cloned(),
        };
        if segments.last().is_some_and(|s| s == "*") {
            segments.pop();
        }
        out.push((segments, bound));
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

/// The `use` declarations of code (their trees) and the code without them.
fn split_uses(code: &str) -> (Vec<String>, String) {
    let mut uses = Vec::new();
    let mut rest = String::new();
    let mut i = 0;
    let chars: Vec<char> = code.chars().collect();
    while i < chars.len() {
        let starts_word = i == 0 || !is_ident(chars[i - 1]);
        let is_use = starts_word
            && chars.get(i..i + 3).is_some_and(|w| w == ['u', 's', 'e'])
            && chars.get(i + 3).is_some_and(|c| c.is_whitespace());
        if is_use {
            let end = chars[i..].iter().position(|c| *c == ';').map_or(chars.len(), |p| i + p);
            uses.push(chars[i + 3..end].iter().collect::<String>());
            i = end + 1;
            continue;
        }
        rest.push(chars[i]);
        i += 1;
    }
    (uses, rest)
}

/// Inline paths starting with `crate::`, `super::` or `self::`.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    paths_written(code, |first| matches!(first, "crate" | "super" | "self"))
}

/// The paths of two or more segments written in `code` whose first segment `keep`s.
fn paths_written(code: &str, keep: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == '$')) && is_ident(chars[i]) {
            let mut segments = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                segments.push(chars[start..j].iter().collect::<String>());
                if chars.get(j) == Some(&':')
                    && chars.get(j + 1) == Some(&':')
                    && chars.get(j + 2).is_some_and(|c| is_ident(*c))
                {
                    j += 2;
                } else {
                    break;
                }
            }
            if segments.len() > 1 && keep(&segments[0]) {
                out.push(segments);
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// The crate as files, modules and `use` bindings.
pub struct Crate {
    files: Vec<SourceFile>,
    /// Module path -> index in `files`.
    modules: BTreeMap<ModPath, usize>,
    /// (module, bound name) -> the path it is bound to, as written in that module.
    bindings: BTreeMap<(ModPath, String), Vec<String>>,
    /// Per file: the paths it uses (as written).
    references: Vec<Vec<Vec<String>>>,
}

impl Crate {
    /// Parses `(name relative to src/, text)` pairs.
    pub fn parse(sources: &[(String, String)]) -> Crate {
        let mut files = Vec::new();
        let mut test_only: BTreeSet<ModPath> = BTreeSet::new();
        for (name, text) in sources {
            let (module, is_face) = module_of(name);
            let stripped = strip_comments_and_literals(text);
            let whole_file_test =
                stripped.chars().filter(|c| !c.is_whitespace()).collect::<String>().contains("#![cfg(test)]");
            let (code, tests) = strip_test_items(&stripped);
            for t in tests {
                let mut child = module.clone();
                child.push(t);
                test_only.insert(child);
            }
            if whole_file_test {
                test_only.insert(module.clone());
            }
            files.push(SourceFile { name: name.clone(), module, is_face, code });
        }
        files.retain(|f| !test_only.iter().any(|t| f.module.starts_with(t)));
        // `x.rs` beside a directory `x/` is that directory's face, as `x/mod.rs` would be.
        let parents: BTreeSet<ModPath> =
            files.iter().filter(|f| f.module.len() > 1).map(|f| f.module[..f.module.len() - 1].to_vec()).collect();
        for file in &mut files {
            file.is_face |= parents.contains(&file.module);
        }
        let modules = files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
        let mut bindings = BTreeMap::new();
        let mut references = Vec::new();
        for file in &files {
            let (uses, rest) = split_uses(&file.code);
            let mut refs = Vec::new();
            for tree in uses {
                let tree = tree.trim().trim_start_matches("::");
                for (path, bound) in use_leaves(tree) {
                    if let Some(name) = bound {
                        bindings.insert((file.module.clone(), name), path.clone());
                    }
                    refs.push(path);
                }
            }
            refs.extend(inline_paths(&rest));
            references.push(refs);
        }
        Crate { files, modules, bindings, references }
    }

    /// The file defining what `path` (written in module `from`) names, if it is in
    /// this crate.
    fn resolve(&self, from: &ModPath, path: &[String], depth: usize) -> Option<usize> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let mut module: ModPath = match path[0].as_str() {
            "crate" => Vec::new(),
            "self" => from.clone(),
            "super" => from[..from.len().saturating_sub(1)].to_vec(),
            first => {
                // A child module of `from`, or a name bound in `from`; else an external
                // crate.
                let mut child = from.clone();
                child.push(first.to_owned());
                if self.modules.contains_key(&child) {
                    from.clone()
                } else if let Some(bound) = self.bindings.get(&(from.clone(), first.to_owned())) {
                    let mut full = bound.clone();
                    full.extend(path[1..].iter().cloned());
                    return self.resolve(from, &full, depth + 1);
                } else {
                    return None;
                }
            }
        };
        let mut rest = match path[0].as_str() {
            "crate" | "self" | "super" => &path[1..],
            _ => path,
        };
        while rest.first().is_some_and(|s| s == "super") {
            module.pop();
            rest = &rest[1..];
        }
        for segment in rest {
            let mut child = module.clone();
            child.push(segment.clone());
            if self.modules.contains_key(&child) {
                module = child;
                continue;
            }
            // An item of `module`: defined there, or bound there by a `use`.
            if let Some(bound) = self.bindings.get(&(module.clone(), segment.clone())) {
                if bound.last() == Some(segment) || bound.len() > 1 {
                    if let Some(target) = self.resolve(&module, bound, depth + 1) {
                        return Some(target);
                    }
                }
            }
            return self.modules.get(&module).copied();
        }
        self.modules.get(&module).copied()
    }

    /// The graph of files.
    pub fn graph(&self) -> Graph {
        let mut graph = Graph::default();
        for (index, file) in self.files.iter().enumerate() {
            if file.module.is_empty() {
                continue; // lib.rs: the crate's face
            }
            for path in &self.references[index] {
                let Some(target) = self.resolve(&file.module, path, 0) else { continue };
                let to = &self.files[target];
                let own_child = file.is_face && to.module.starts_with(&file.module);
                if target == index || to.module.is_empty() || own_child {
                    continue;
                }
                graph
                    .edges
                    .entry(file.name.clone())
                    .or_default()
                    .entry(to.name.clone())
                    .or_insert_with(|| path.join("::"));
            }
        }
        graph
    }
}

impl Graph {
    /// The graph of the crate's modules: a top-level file, or a directory with
    /// everything under it (`scan/`), is one node. A file that imports nothing of its
    /// crate stays a node of its own (`transport/failure.rs`): it cannot close a loop,
    /// and importing it depends on none of its directory's other files.
    pub fn by_module(&self) -> Graph {
        let top = |file: &str| match file.split_once('/') {
            Some(_) if !self.edges.contains_key(file) => file.to_owned(),
            Some((dir, _)) => format!("{dir}/"),
            None => file.to_owned(),
        };
        let mut graph = Graph::default();
        for (from, targets) in &self.edges {
            for (to, why) in targets {
                let (a, b) = (top(from), top(to));
                if a != b {
                    graph.edges.entry(a).or_default().entry(b).or_insert_with(|| format!("{from}: {why}"));
                }
            }
        }
        graph
    }

    /// Every cycle, one per strongly connected component, as `a -> b -> a` with the
    /// reference behind each edge.
    pub fn cycles(&self) -> Vec<String> {
        let nodes: BTreeSet<&String> = self.edges.keys().chain(self.edges.values().flat_map(|m| m.keys())).collect();
        let reaches = |from: &String| -> BTreeSet<String> {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from.clone()];
            while let Some(n) = stack.pop() {
                for next in self.edges.get(&n).into_iter().flat_map(|m| m.keys()) {
                    if seen.insert(next.clone()) {
                        stack.push(next.clone());
                    }
                }
            }
            seen
        };
        let reach: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|n| (*n, reaches(n))).collect();
        let mut done: BTreeSet<String> = BTreeSet::new();
        let mut out = Vec::new();
        for node in &nodes {
            if done.contains(*node) || !reach[node].contains(*node) {
                continue;
            }
            let component: BTreeSet<String> =
                reach[node].iter().filter(|m| reach[m].contains(*node)).cloned().collect();
            done.extend(component.iter().cloned());
            let members: Vec<&str> = component.iter().map(String::as_str).collect();
            out.push(format!("{} (the loop's files: {})", self.shortest_cycle(node), members.join(", ")));
        }
        out
    }

    /// The shortest cycle through `start`, with the reference behind each edge.
    fn shortest_cycle(&self, start: &str) -> String {
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.to_owned()]);
        while let Some(n) = queue.pop_front() {
            for next in self.edges.get(&n).into_iter().flat_map(|m| m.keys()) {
                if next == start {
                    let mut path = vec![n.clone()];
                    while let Some(p) = previous.get(path.last().expect("non-empty")) {
                        path.push(p.clone());
                    }
                    path.reverse();
                    path.push(start.to_owned());
                    return path
                        .windows(2)
                        .map(|w| format!("{} -[{}]-> ", w[0], self.edges[&w[0]][&w[1]]))
                        .collect::<String>()
                        + start;
                }
                if !previous.contains_key(next) && next != start {
                    previous.insert(next.clone(), n.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        format!("{start} (no cycle)")
    }
}

/// The graph of files of the crate whose sources are under `src`.
pub fn crate_graph(src: &Path) -> Graph {
    Crate::parse(&read_sources(src)).graph()
}

/// Per file of the crate under `src` (test-only code left out), the paths it writes
/// into the external crate `krate` (e.g. `basalt_thrift`), as `(file, path)`.
pub fn external_references(src: &Path, krate: &str) -> Vec<(String, String)> {
    let parsed = Crate::parse(&read_sources(src));
    let mut out = Vec::new();
    for (file, references) in parsed.files.iter().zip(&parsed.references) {
        let (_, rest) = split_uses(&file.code);
        let inline = paths_written(&rest, |first| first == krate);
        for path in references.iter().chain(&inline) {
            if path.first().is_some_and(|first| first == krate) {
                out.push((file.name.clone(), path.join("::")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_is_found_and_named() {
        let sources = [
            ("lib.rs", "mod a;\nmod b;\nmod d;\npub use d::Thing;"),
            ("a.rs", "use crate::b::B; // crate::d::Thing in a comment\npub struct A;"),
            ("b.rs", "pub struct B(crate::Thing);\n#[cfg(test)]\nmod tests { use crate::a::A; }"),
            ("d/mod.rs", "mod e;\npub use e::Thing;\nfn f() -> e::Thing { todo!() }"),
            ("d/e.rs", "pub struct Thing;\nfn g() { let _ = \"crate::a::A\"; super::super::a::A; }"),
        ]
        .map(|(n, t)| (n.to_owned(), t.to_owned()));
        let graph = Crate::parse(&sources).graph();
        let edges =
            |from: &str| graph.edges.get(from).map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        assert_eq!(edges("a.rs"), ["b.rs"]);
        assert_eq!(edges("b.rs"), ["d/e.rs"], "through the crate's and the directory's re-exports");
        assert_eq!(edges("d/mod.rs"), Vec::<String>::new(), "a directory's face may use its children");
        assert_eq!(edges("d/e.rs"), ["a.rs"]);
        let cycles = graph.cycles();
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert!(cycles[0].contains("a.rs -[crate::b::B]-> b.rs"), "{}", cycles[0]);
        assert!(cycles[0].contains("d/e.rs -[super::super::a::A]-> a.rs"), "{}", cycles[0]);
        let modules = graph.by_module().cycles();
        assert_eq!(modules.len(), 1, "{modules:?}");
        assert!(modules[0].contains("a.rs -[a.rs: crate::b::B]-> b.rs -[b.rs: crate::Thing]-> d/"), "{}", modules[0]);
        // Without the inline reference back to a.rs, no cycle.
        let acyclic: Vec<(String, String)> =
            sources.iter().map(|(n, t)| (n.clone(), t.replace("super::super::a::A;", ""))).collect();
        assert!(Crate::parse(&acyclic).graph().cycles().is_empty());
    }

    #[test]
    fn a_file_that_imports_nothing_of_its_crate_is_its_own_module() {
        // a.rs uses d/leaf.rs, which imports nothing; d/mod.rs uses a.rs: no loop.
        let sources = |leaf: &str| {
            [
                ("lib.rs", "mod a;\nmod d;"),
                ("a.rs", "use crate::d::Leaf;\npub struct A;"),
                ("d/mod.rs", "mod leaf;\npub use leaf::Leaf;\nfn f(_: crate::a::A) {}"),
                ("d/leaf.rs", leaf),
            ]
            .map(|(n, t)| (n.to_owned(), t.to_owned()))
        };
        let graph = Crate::parse(&sources("pub struct Leaf;")).graph();
        assert!(graph.by_module().cycles().is_empty(), "{:?}", graph.by_module());
        // Once the leaf imports its crate, it is part of its directory again: a loop.
        let graph = Crate::parse(&sources("pub struct Leaf(crate::a::A);")).graph();
        assert_eq!(graph.by_module().cycles().len(), 1, "{:?}", graph.by_module());
    }

    #[test]
    fn external_references_skip_comments_and_tests() {
        let dir = std::env::temp_dir().join(format!("basalt-import-graph-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        std::fs::write(dir.join("lib.rs"), "mod a;\n// basalt_thrift::X\nuse basalt_thrift::Y;\n").expect("write");
        std::fs::write(
            dir.join("a.rs"),
            "fn f() -> basalt_rpc::Z { todo!() }\n#[cfg(test)]\nmod tests { use basalt_thrift::W; }\n",
        )
        .expect("write");
        let thrift = external_references(&dir, "basalt_thrift");
        let rpc = external_references(&dir, "basalt_rpc");
        std::fs::remove_dir_all(&dir).expect("remove the temporary directory");
        assert_eq!(thrift, [("lib.rs".to_owned(), "basalt_thrift::Y".to_owned())]);
        assert_eq!(rpc, [("a.rs".to_owned(), "basalt_rpc::Z".to_owned())]);
    }
}
