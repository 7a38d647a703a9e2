//! A cluster found the way its users already configure it: its `hbase-site.xml`.
//!
//! [`HBaseSite`] reads the file (Hadoop configuration XML, `${key}` references
//! expanded) and says how the native transport reaches the cluster
//! ([`HBaseSite::native_route`]), under which parent znode, and with which TLS and
//! Kerberos settings ([`HBaseSite::security`]). [`ClientBuilder::hbase_site`](crate::ClientBuilder::hbase_site)
//! and [`ClientBuilder::conf_dir`](crate::ClientBuilder::conf_dir) build a client from
//! it; explicit builder calls win over the file. See `docs/native.md` for the keys read.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

mod parse;
mod settings;

pub use parse::MAX_SITE_BYTES;
pub use settings::SiteRoute;

/// The file read in a configuration directory.
pub const SITE_FILE: &str = "hbase-site.xml";
/// The environment variable naming the configuration directory (as HBase's scripts).
pub const CONF_DIR_ENV: &str = "HBASE_CONF_DIR";
/// Where HBase's packages put the configuration of an edge node, looked at when
/// [`CONF_DIR_ENV`] is unset.
pub const DEFAULT_CONF_DIR: &str = "/etc/hbase/conf";
/// Most `${key}` expansions in one value (Hadoop's `MAX_SUBST`).
const MAX_SUBSTITUTIONS: usize = 20;

/// Why a site file could not be used. Every kind names the file; those about its
/// content name a line too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SiteError {
    /// The file (or directory) could not be read.
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        message: String,
    },
    /// The file is larger than [`MAX_SITE_BYTES`].
    #[error("{}: larger than {max} bytes ({size} read): not read as a site file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Bytes read before stopping.
        size: u64,
        /// The bound.
        max: usize,
    },
    /// Not a Hadoop configuration file (bad XML, DTD, other structure, over a bound).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// A property's value cannot be used.
    #[error("{}:{line}: {key}: {message}", path.display())]
    Value {
        /// The file.
        path: PathBuf,
        /// 1-based line of the property (0 for a setting the file lacks).
        line: u32,
        /// The property's name.
        key: String,
        /// What is wrong, and what would be right.
        message: String,
    },
}

/// One property's value and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    value: String,
    line: u32,
    is_final: bool,
}

/// A parsed `hbase-site.xml`: its properties, read with [`HBaseSite::get`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HBaseSite {
    path: PathBuf,
    properties: BTreeMap<String, Entry>,
}

impl HBaseSite {
    /// Reads and parses the site file at `path` (at most [`MAX_SITE_BYTES`]).
    pub fn load(path: impl AsRef<Path>) -> Result<HBaseSite, SiteError> {
        let path = path.as_ref();
        let read_error = |e: std::io::Error| SiteError::Read { path: path.to_owned(), message: e.to_string() };
        let file = std::fs::File::open(path).map_err(read_error)?;
        let mut bytes = Vec::new();
        let limit = u64::try_from(MAX_SITE_BYTES).unwrap_or(u64::MAX).saturating_add(1);
        file.take(limit).read_to_end(&mut bytes).map_err(read_error)?;
        if bytes.len() > MAX_SITE_BYTES {
            let size = bytes.len() as u64;
            return Err(SiteError::TooLarge { path: path.to_owned(), size, max: MAX_SITE_BYTES });
        }
        let text = String::from_utf8(bytes).map_err(|e| SiteError::Malformed {
            path: path.to_owned(),
            line: 0,
            column: 0,
            message: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        })?;
        HBaseSite::parse(&text, path)
    }

    /// Reads `dir`/`hbase-site.xml`.
    pub fn in_dir(dir: impl AsRef<Path>) -> Result<HBaseSite, SiteError> {
        HBaseSite::load(dir.as_ref().join(SITE_FILE))
    }

    /// The site file of this machine: in `$HBASE_CONF_DIR` when it is set (an error if
    /// that directory has none), else in [`DEFAULT_CONF_DIR`] if there is one there;
    /// `None` when neither applies.
    pub fn find() -> Result<Option<HBaseSite>, SiteError> {
        match std::env::var_os(CONF_DIR_ENV).filter(|d| !d.is_empty()) {
            Some(dir) => HBaseSite::in_dir(dir).map(Some),
            None => {
                let default = Path::new(DEFAULT_CONF_DIR).join(SITE_FILE);
                if default.is_file() {
                    HBaseSite::load(default).map(Some)
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// Parses `text` as the site file `path` (named in errors).
    pub fn parse(text: &str, path: impl Into<PathBuf>) -> Result<HBaseSite, SiteError> {
        let path = path.into();
        let mut properties: BTreeMap<String, Entry> = BTreeMap::new();
        for property in parse::parse(text, &path)? {
            if properties.get(&property.name).is_some_and(|earlier| earlier.is_final) {
                continue; // Hadoop: a final property is not overridden.
            }
            let entry = Entry { value: property.value, line: property.line, is_final: property.is_final };
            properties.insert(property.name, entry);
        }
        Ok(HBaseSite { path, properties })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value of `key` with `${other.key}` (and `${env.NAME}`) references expanded as
    /// Hadoop does: an unknown reference is left as written. `None` when the key is
    /// absent or its value is blank.
    pub fn get(&self, key: &str) -> Result<Option<String>, SiteError> {
        let Some(entry) = self.properties.get(key) else { return Ok(None) };
        let value = self.expand(key, entry, |name| std::env::var(name).ok())?;
        let value = value.trim();
        Ok(if value.is_empty() { None } else { Some(value.to_owned()) })
    }

    /// The line `key` is defined at (0 when absent), for errors about its value.
    fn line_of(&self, key: &str) -> u32 {
        self.properties.get(key).map_or(0, |e| e.line)
    }

    /// An error about the value of `key`.
    fn value_error(&self, key: &str, message: String) -> SiteError {
        SiteError::Value { path: self.path.clone(), line: self.line_of(key), key: key.to_owned(), message }
    }

    /// `entry`'s value with references expanded; `env` looks up `${env.NAME}`.
    fn expand(&self, key: &str, entry: &Entry, env: impl Fn(&str) -> Option<String>) -> Result<String, SiteError> {
        let mut value = entry.value.clone();
        for _ in 0..MAX_SUBSTITUTIONS {
            let Some((start, end, name)) = first_reference(&value) else { return Ok(value) };
            let replacement = match name.strip_prefix("env.") {
                Some(var) => env(var),
                None => self.properties.get(name).map(|e| e.value.clone()),
            };
            let Some(replacement) = replacement else { return Ok(value) }; // Hadoop: left as written
            let grown = value.len() - (end - start) + replacement.len();
            if grown > MAX_SITE_BYTES {
                return Err(self.value_error(key, format!("expands past {MAX_SITE_BYTES} bytes")));
            }
            value.replace_range(start..end, &replacement);
        }
        if first_reference(&value).is_some() {
            let message = format!("more than {MAX_SUBSTITUTIONS} ${{...}} expansions (a reference loop?)");
            return Err(self.value_error(key, message));
        }
        Ok(value)
    }
}

/// The first `${name}` in `value` (a name without `$`, `{`, `}` or spaces, as Hadoop's
/// pattern): its byte range and the name.
fn first_reference(value: &str) -> Option<(usize, usize, &str)> {
    let mut from = 0;
    while let Some(offset) = value.get(from..)?.find("${") {
        let start = from + offset;
        let name_start = start + 2;
        let rest = value.get(name_start..)?;
        let name_len = rest.find(|c: char| c == '}' || c == '$' || c == '{' || c.is_whitespace());
        match name_len {
            Some(len) if len > 0 && rest.get(len..)?.starts_with('}') => {
                let name = rest.get(..len)?;
                return Some((start, name_start + len + 1, name));
            }
            Some(_) | None => from = name_start,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(properties: &[(&str, &str)]) -> HBaseSite {
        let body: String = properties
            .iter()
            .map(|(k, v)| format!("<property><name>{k}</name><value>{v}</value></property>\n"))
            .collect();
        HBaseSite::parse(&format!("<configuration>\n{body}</configuration>"), "/c/hbase-site.xml").unwrap()
    }

    #[test]
    fn references_expand_as_hadoop_does() {
        let s = site(&[
            ("zk.host", "zk1"),
            ("zk.hosts", "${zk.host},zk2"),
            ("hbase.zookeeper.quorum", "${zk.hosts},zk3"),
            ("unknown", "${nope}/x/${zk.host}"),
            ("loop", "${loop}"),
            ("blank", "  "),
            ("odd", "$}{${}${ a}${zk.host"),
        ]);
        assert_eq!(s.get("hbase.zookeeper.quorum").unwrap().as_deref(), Some("zk1,zk2,zk3"));
        assert_eq!(s.get("unknown").unwrap().as_deref(), Some("${nope}/x/${zk.host}"));
        assert_eq!(s.get("odd").unwrap().as_deref(), Some("$}{${}${ a}${zk.host"));
        assert_eq!(s.get("blank").unwrap(), None);
        assert_eq!(s.get("absent").unwrap(), None);
        let looped = s.get("loop").unwrap_err();
        assert!(matches!(&looped, SiteError::Value { key, line: 6, .. } if key == "loop"), "{looped}");
        assert!(looped.to_string().starts_with("/c/hbase-site.xml:6: loop:"), "{looped}");
        let entry = Entry { value: "${env.ZK}:${env.NONE}".into(), line: 1, is_final: false };
        let env = |name: &str| (name == "ZK").then(|| "zk9".to_owned());
        assert_eq!(s.expand("k", &entry, env).unwrap(), "zk9:${env.NONE}");
    }

    #[test]
    fn expansion_is_bounded_in_size() {
        // Each level doubles: 2^30 bytes if unbounded.
        let mut properties = vec![("l0".to_owned(), "x".repeat(1024))];
        for i in 1..=30 {
            properties.push((format!("l{i}"), format!("${{l{}}}${{l{}}}", i - 1, i - 1)));
        }
        let body: String = properties
            .iter()
            .map(|(k, v)| format!("<property><name>{k}</name><value>{v}</value></property>"))
            .collect();
        let s = HBaseSite::parse(&format!("<configuration>{body}</configuration>"), "/c/h.xml").unwrap();
        assert!(s.get("l30").is_err());
        assert_eq!(s.get("l2").unwrap().map(|v| v.len()), Some(4096));
    }

    #[test]
    fn a_final_property_is_not_overridden() {
        let text = "<configuration>\
            <property><name>a</name><value>1</value><final>true</final></property>\
            <property><name>a</name><value>2</value></property>\
            <property><name>b</name><value>1</value></property>\
            <property><name>b</name><value>2</value></property></configuration>";
        let s = HBaseSite::parse(text, "/c/h.xml").unwrap();
        assert_eq!((s.get("a").unwrap().as_deref(), s.get("b").unwrap().as_deref()), (Some("1"), Some("2")));
    }

    const GOOD: &str = "<?xml version=\"1.0\"?>\n<configuration>\n<property><name>hbase.zookeeper.quorum</name>\
        <value>${zk}</value></property>\n<property name=\"zk\" value=\"zk1:2181\"/>\n<property><name>\
        hbase.client.netty.tls.enabled</name><value>true</value><final>true</final></property>\n</configuration>\n";

    #[test]
    fn the_seed_of_the_hostile_texts_is_a_good_file() {
        let site = HBaseSite::parse(GOOD, "/c/hbase-site.xml").unwrap();
        assert_eq!(site.native_route().unwrap(), SiteRoute::ZooKeeper("zk1:2181".into()));
        assert!(site.security().unwrap().tls.is_some());
    }

    proptest::proptest! {
        /// Any text, and any cut or splice of a good file, is a site or a typed error:
        /// never a panic, whatever is then asked of it.
        #[test]
        fn hostile_text_never_panics(text in ".{0,400}", cut in 0usize..400, splice in ".{0,40}") {
            let mut spliced = GOOD.to_owned();
            let at = (0..=cut.min(spliced.len())).rev().find(|i| spliced.is_char_boundary(*i)).unwrap_or(0);
            spliced.insert_str(at, &splice);
            let truncated = GOOD.get(..cut.min(GOOD.len())).unwrap_or(GOOD);
            for candidate in [text.as_str(), spliced.as_str(), truncated] {
                if let Ok(site) = HBaseSite::parse(candidate, "/c/hbase-site.xml") {
                    let _ = site.native_route();
                    let _ = site.security();
                    let _ = site.znode_parent();
                }
            }
        }
    }

    #[test]
    fn files_are_read_within_bounds_and_errors_name_them() {
        let dir = std::env::temp_dir().join(format!("basalt-site-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = HBaseSite::in_dir(&dir).unwrap_err();
        assert!(matches!(&missing, SiteError::Read { path, .. } if path.ends_with(SITE_FILE)), "{missing}");
        let file = dir.join(SITE_FILE);
        std::fs::write(&file, vec![b' '; MAX_SITE_BYTES + 10]).unwrap();
        assert!(matches!(HBaseSite::in_dir(&dir), Err(SiteError::TooLarge { .. })));
        std::fs::write(&file, b"<configuration>\xff</configuration>").unwrap();
        assert!(HBaseSite::in_dir(&dir).unwrap_err().to_string().contains("UTF-8"));
        let text = "<configuration><property><name>k</name><value>v</value></property></configuration>";
        std::fs::write(&file, text).unwrap();
        let s = HBaseSite::in_dir(&dir).unwrap();
        assert_eq!((s.path(), s.get("k").unwrap().as_deref()), (file.as_path(), Some("v")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
