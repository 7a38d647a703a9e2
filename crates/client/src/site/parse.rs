//! Hadoop configuration XML (`hbase-site.xml`) to a list of properties, bounded for
//! hostile files: the size is checked before parsing, the parser (`roxmltree`) refuses
//! DTDs (so no entity expansion) and stops at a node count, and the nesting depth and
//! the number of properties are bounded. Every error names the file and a line.
//!
//! The format: `<configuration>` holding `<property>` elements, each with `<name>`,
//! `<value>` and optionally `<final>` children (or, as Hadoop 3 also reads, `name`,
//! `value` and `final` attributes). `<description>` and `<source>` are ignored, as are
//! unknown elements; `<include>` (XInclude) is refused, since what it would bring in
//! cannot be read.

use std::path::Path;

use roxmltree::{Document, Node, ParsingOptions};

use super::SiteError;

/// Largest site file read (Hadoop's own default file is about 100 KiB).
pub const MAX_SITE_BYTES: usize = 4 << 20;
/// Most XML nodes (elements, text, comments) in a site file.
const MAX_NODES: u32 = 500_000;
/// Deepest element nesting accepted (a property's value text is at depth 4).
const MAX_DEPTH: usize = 32;
/// Most properties in a site file.
const MAX_PROPERTIES: usize = 20_000;
/// Longest property name.
const MAX_NAME_BYTES: usize = 1024;

/// One property as written in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Property {
    pub name: String,
    pub value: String,
    /// Hadoop's `<final>true</final>`: later definitions do not override it.
    pub is_final: bool,
    /// 1-based line of the `<property>` element.
    pub line: u32,
}

/// The properties of the site file `text` read from `path`, in file order.
pub(crate) fn parse(text: &str, path: &Path) -> Result<Vec<Property>, SiteError> {
    if text.len() > MAX_SITE_BYTES {
        return Err(SiteError::TooLarge { path: path.to_owned(), size: text.len() as u64, max: MAX_SITE_BYTES });
    }
    let options = ParsingOptions { allow_dtd: false, nodes_limit: MAX_NODES, ..ParsingOptions::default() };
    let doc = Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        SiteError::Malformed { path: path.to_owned(), line: pos.row, column: pos.col, message: e.to_string() }
    })?;
    check_depth(&doc, path)?;
    let root = doc.root_element();
    if root.tag_name().name() != "configuration" {
        let message = format!("the top element is <{}>, not <configuration>", root.tag_name().name());
        return Err(malformed(&doc, root, path, message));
    }
    let mut properties = Vec::new();
    let mut lines = Lines { text, pos: 0, line: 1 };
    for child in root.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "property" => {
                if properties.len() == MAX_PROPERTIES {
                    let message = format!("more than {MAX_PROPERTIES} properties");
                    return Err(malformed(&doc, child, path, message));
                }
                properties.push(property(&doc, child, path, lines.at(child.range().start))?);
            }
            "include" => {
                let message = "<include> (XInclude) is not supported: put the included properties in the file".into();
                return Err(malformed(&doc, child, path, message));
            }
            _ => {} // Hadoop ignores other elements of <configuration> too.
        }
    }
    Ok(properties)
}

/// One `<property>` element.
fn property(doc: &Document<'_>, node: Node<'_, '_>, path: &Path, line: u32) -> Result<Property, SiteError> {
    let mut name = node.attribute("name").map(str::to_owned);
    let mut value = node.attribute("value").map(str::to_owned);
    let mut is_final = node.attribute("final").map(|f| f.trim() == "true");
    for child in node.children().filter(Node::is_element) {
        let slot = match child.tag_name().name() {
            "name" => &mut name,
            "value" => &mut value,
            "final" => {
                is_final = Some(text_of(child).trim() == "true");
                continue;
            }
            _ => continue, // description, source, tag: not needed
        };
        *slot = Some(text_of(child));
    }
    let name = name.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
    let Some(name) = name else {
        return Err(malformed(doc, node, path, "a <property> without a <name>".into()));
    };
    if name.len() > MAX_NAME_BYTES {
        let message = format!("a property name of {} bytes (at most {MAX_NAME_BYTES})", name.len());
        return Err(malformed(doc, node, path, message));
    }
    // Hadoop skips a property without a value; it is kept here as empty, which every
    // setting read from the file takes as unset.
    Ok(Property { name, value: value.unwrap_or_default(), is_final: is_final.unwrap_or(false), line })
}

/// Line numbers of increasing positions, counted on from the last one (Document's
/// `text_pos_at` counts from the start each time: quadratic over many properties).
struct Lines<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
}

impl Lines<'_> {
    fn at(&mut self, pos: usize) -> u32 {
        if pos > self.pos {
            let between = self.text.as_bytes().get(self.pos..pos).unwrap_or_default();
            let newlines = between.iter().filter(|b| **b == b'\n').count();
            self.line = self.line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            self.pos = pos;
        }
        self.line
    }
}

/// The text inside an element (every text child, concatenated; CDATA included).
fn text_of(node: Node<'_, '_>) -> String {
    node.children().filter(Node::is_text).filter_map(|t| t.text()).collect()
}

/// Refuses elements nested deeper than [`MAX_DEPTH`]: one pass in document order (a
/// parent comes before its children), without recursion.
fn check_depth(doc: &Document<'_>, path: &Path) -> Result<(), SiteError> {
    let mut depths: Vec<u16> = Vec::new();
    for node in doc.descendants() {
        let depth = node.parent().map_or(0, |parent| {
            let parent_depth = depths.get(index_of(parent)).copied().unwrap_or(0);
            parent_depth.saturating_add(u16::from(node.is_element()))
        });
        if usize::from(depth) > MAX_DEPTH {
            let message = format!("elements nested deeper than {MAX_DEPTH} levels");
            return Err(malformed(doc, node, path, message));
        }
        let at = index_of(node);
        if depths.len() <= at && at <= MAX_NODES as usize + 1 {
            depths.resize(at + 1, 0);
        }
        if let Some(slot) = depths.get_mut(at) {
            *slot = depth;
        }
    }
    Ok(())
}

/// A node's index in the document (its id as a `usize`).
fn index_of(node: Node<'_, '_>) -> usize {
    usize::try_from(node.id().get()).unwrap_or(usize::MAX)
}

fn malformed(doc: &Document<'_>, node: Node<'_, '_>, path: &Path, message: String) -> SiteError {
    let pos = doc.text_pos_at(node.range().start);
    SiteError::Malformed { path: path.to_owned(), line: pos.row, column: pos.col, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<Property>, SiteError> {
        parse(text, Path::new("/conf/hbase-site.xml"))
    }

    fn error_at(text: &str) -> (u32, String) {
        match parsed(text) {
            Err(SiteError::Malformed { line, message, path, .. }) => {
                assert_eq!(path, Path::new("/conf/hbase-site.xml"));
                (line, message)
            }
            other => panic!("expected a malformed-file error, got {other:?}"),
        }
    }

    #[test]
    fn a_usual_site_file() {
        let text = r#"<?xml version="1.0"?>
<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>
<!-- Licensed to the Apache Software Foundation -->
<configuration>
  <property>
    <name>hbase.zookeeper.quorum</name>
    <value>zk1.example.com,zk2.example.com:2182</value>
    <description>The quorum.</description>
  </property>
  <property><name> zookeeper.znode.parent </name><value><![CDATA[/hbase-secure]]></value><final>true</final></property>
  <property name="hbase.rpc.protection" value="privacy"/>
  <property><name>empty</name></property>
</configuration>
"#;
        let props = parsed(text).unwrap();
        let got: Vec<(&str, &str, bool, u32)> =
            props.iter().map(|p| (p.name.as_str(), p.value.as_str(), p.is_final, p.line)).collect();
        assert_eq!(
            got,
            [
                ("hbase.zookeeper.quorum", "zk1.example.com,zk2.example.com:2182", false, 5),
                ("zookeeper.znode.parent", "/hbase-secure", true, 10),
                ("hbase.rpc.protection", "privacy", false, 11),
                ("empty", "", false, 12),
            ]
        );
        assert!(parsed("<configuration/>").unwrap().is_empty());
    }

    #[test]
    fn malformed_files_name_their_line() {
        let (line, message) = error_at("<configuration>\n<property>\n<name>a</name>\n</configuration>");
        assert_eq!(line, 4, "{message}");
        let (line, message) = error_at("<conf>\n</conf>");
        assert_eq!(line, 1);
        assert!(message.contains("<configuration>"), "{message}");
        let (line, message) = error_at("<configuration>\n\n  <property><value>v</value></property>\n</configuration>");
        assert_eq!(line, 3);
        assert!(message.contains("without a <name>"), "{message}");
        let (line, message) = error_at("<configuration>\n<include href='x.xml'/></configuration>");
        assert_eq!(line, 2);
        assert!(message.contains("XInclude"), "{message}");
        let (_, message) = error_at("");
        assert!(!message.is_empty());
        let (_, message) = error_at("not xml at all");
        assert!(!message.is_empty());
        let (_, message) = error_at("<configuration>\u{0}</configuration>");
        assert!(!message.is_empty());
    }

    #[test]
    fn hostile_files_are_refused_within_bounds() {
        // Entity expansion (billion laughs): no DTD is read.
        let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<configuration><property><name>a</name><value>&lol2;</value></property></configuration>"#;
        let (_, message) = error_at(laughs);
        assert!(message.to_lowercase().contains("dtd"), "{message}");
        // An external entity: no DTD either, so nothing is fetched.
        let external = r#"<!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]><configuration>&x;</configuration>"#;
        assert!(parsed(external).is_err());
    }

    #[test]
    fn deep_nesting_is_refused() {
        // Deep nesting: refused by depth, without exhausting the stack.
        let deep = format!("<configuration>{}{}</configuration>", "<a>".repeat(100_000), "</a>".repeat(100_000));
        let (line, message) = error_at(&deep);
        assert_eq!(line, 1);
        assert!(message.contains("deeper than"), "{message}");
        // Too large: refused before parsing.
        let huge = format!("<configuration>{}</configuration>", " ".repeat(MAX_SITE_BYTES));
        assert!(matches!(parsed(&huge), Err(SiteError::TooLarge { max: MAX_SITE_BYTES, .. })));
    }

    #[test]
    fn too_many_nodes_are_refused() {
        // Too many nodes.
        let many = format!("<configuration>{}</configuration>", "<x/>".repeat(MAX_NODES as usize + 1));
        assert!(matches!(parsed(&many), Err(SiteError::Malformed { .. })));
    }

    #[test]
    fn too_many_properties_are_refused() {
        // Too many properties.
        let one = "<property><name>k</name><value>v</value></property>";
        let props = format!("<configuration>{}</configuration>", one.repeat(MAX_PROPERTIES + 1));
        let (_, message) = error_at(&props);
        assert!(message.contains("more than"), "{message}");
        // A name too long.
        let long = format!("<configuration><property><name>{}</name></property></configuration>", "n".repeat(5000));
        let (_, message) = error_at(&long);
        assert!(message.contains("property name"), "{message}");
        // Unknown entities and unclosed tags.
        assert!(parsed("<configuration>&nope;</configuration>").is_err());
        assert!(parsed("<configuration><property>").is_err());
    }
}
