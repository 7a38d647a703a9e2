//! How input columns become a row: key fields of a schema (or a raw key column), cells
//! `family:qualifier` with a type each, and the cells' timestamps.

use basalt::Put;
use basalt_rowkey::{Schema, Value};
use bytes::Bytes;

use crate::error::{CliError, CliResult};
use crate::keyfmt::{parse_hex_digits, unescape};

/// How a column's text becomes a cell value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellType {
    /// UTF-8 text, stored as is (invalid UTF-8 is rejected).
    Text,
    /// The bytes as they are, no check.
    Bytes,
    /// `\xNN` escapes (what `basalt export` writes).
    Escaped,
    /// Hex digits, with or without `0x`.
    Hex,
    /// Big-endian integers and floats, as HBase's `Bytes.toBytes`.
    I16,
    /// 32-bit big-endian.
    I32,
    /// 64-bit big-endian.
    I64,
    /// IEEE 754 single, big-endian.
    F32,
    /// IEEE 754 double, big-endian.
    F64,
    /// One byte: `true` 0xff, `false` 0x00.
    Bool,
}

impl CellType {
    fn parse(name: &str) -> Option<CellType> {
        Some(match name {
            "text" | "string" => CellType::Text,
            "bytes" => CellType::Bytes,
            "escaped" => CellType::Escaped,
            "hex" => CellType::Hex,
            "i16" | "short" => CellType::I16,
            "i32" | "int" => CellType::I32,
            "i64" | "long" => CellType::I64,
            "f32" | "float" => CellType::F32,
            "f64" | "double" => CellType::F64,
            "bool" | "boolean" => CellType::Bool,
            _ => return None,
        })
    }

    /// Converts one column's text; the error says why the value does not fit.
    pub fn convert(self, raw: &[u8]) -> Result<Vec<u8>, String> {
        let text = || std::str::from_utf8(raw).map_err(|_| "invalid UTF-8".to_owned());
        let num = |what: &str| format!("{:?} is not {what}", String::from_utf8_lossy(raw));
        Ok(match self {
            CellType::Text => text()?.as_bytes().to_vec(),
            CellType::Bytes => raw.to_vec(),
            CellType::Escaped => unescape(text()?).map_err(|e| e.message)?,
            CellType::Hex => {
                let t = text()?.trim();
                parse_hex_digits(t.strip_prefix("0x").unwrap_or(t)).map_err(|e| e.message)?
            }
            CellType::I16 => text()?.trim().parse::<i16>().map_err(|_| num("an i16"))?.to_be_bytes().to_vec(),
            CellType::I32 => text()?.trim().parse::<i32>().map_err(|_| num("an i32"))?.to_be_bytes().to_vec(),
            CellType::I64 => text()?.trim().parse::<i64>().map_err(|_| num("an i64"))?.to_be_bytes().to_vec(),
            CellType::F32 => text()?.trim().parse::<f32>().map_err(|_| num("an f32"))?.to_be_bytes().to_vec(),
            CellType::F64 => text()?.trim().parse::<f64>().map_err(|_| num("an f64"))?.to_be_bytes().to_vec(),
            CellType::Bool => match text()?.trim() {
                "true" => vec![0xff],
                "false" => vec![0],
                _ => return Err(num("true or false")),
            },
        })
    }
}

/// A `--cell FAMILY:QUALIFIER=COLUMN[:TYPE]` option, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellSpec {
    family: Bytes,
    qualifier: Bytes,
    column: String,
    ty: CellType,
}

/// Parses `d:dur=duration:i32` (the column defaults to `d:dur`, the type to text).
pub fn parse_cell_spec(text: &str) -> CliResult<CellSpec> {
    let (col, source) = match text.split_once('=') {
        Some((c, s)) => (c, Some(s)),
        None => (text, None),
    };
    let (f, q) = col
        .split_once(':')
        .ok_or_else(|| CliError::usage(format!("--cell {text:?}: give family:qualifier=column[:type]")))?;
    if f.is_empty() {
        return Err(CliError::usage(format!("--cell {text:?}: the family is empty")));
    }
    let (column, ty) = match source {
        None => (col.to_owned(), CellType::Text),
        Some(s) => match s.rsplit_once(':').and_then(|(c, t)| CellType::parse(t).map(|t| (c, t))) {
            Some((c, t)) => (c.to_owned(), t),
            None => (s.to_owned(), CellType::Text),
        },
    };
    if column.is_empty() {
        return Err(CliError::usage(format!("--cell {text:?}: the column name is empty")));
    }
    let family = Bytes::from(unescape(f)?);
    let qualifier = Bytes::from(unescape(q)?);
    Ok(CellSpec { family, qualifier, column, ty })
}

#[derive(Debug, Clone)]
struct CellMap {
    family: Bytes,
    qualifier: Bytes,
    col: usize,
    ty: CellType,
    ts_col: Option<usize>,
}

#[derive(Debug, Clone)]
enum KeyMap {
    /// One column per value field of the schema.
    Schema(Box<Schema>, Vec<usize>),
    /// The key itself, escaped text.
    Raw(usize),
}

/// Everything the import needs to know to turn a record into a [`Put`].
#[derive(Debug, Clone)]
pub struct Mapping {
    key: KeyMap,
    cells: Vec<CellMap>,
    ts_col: Option<usize>,
    /// Columns a record may have: names, and whether each is used.
    header: Vec<String>,
    all_cells: bool,
    /// Import timestamp for cells without a timestamp column.
    default_ts: i64,
}

/// What the user asked for, before the header is known.
#[derive(Debug, Clone, Default)]
pub struct MappingSpec {
    /// The key design; `None`: the key is the column `key_column`.
    pub schema: Option<Schema>,
    /// `--key FIELD=COLUMN` overrides.
    pub key_columns: Vec<(String, String)>,
    /// The raw key column without a schema.
    pub key_column: String,
    /// `--cell` options.
    pub cells: Vec<CellSpec>,
    /// Every other `family:qualifier` column is an escaped cell (`@ts` columns its timestamps).
    pub all_cells: bool,
    /// The timestamp column (ms since the epoch).
    pub ts_column: Option<String>,
    /// Columns to ignore.
    pub skip: Vec<String>,
    /// Whether every header column must be used (CSV/TSV) or may be ignored (JSON).
    pub strict_columns: bool,
}

/// Names of the columns `spec` reads, so JSON readers can register them up front.
pub fn referenced_columns(spec: &MappingSpec) -> Vec<String> {
    let mut cols: Vec<String> = Vec::new();
    let mut add = |c: &str| {
        if !cols.iter().any(|x| x == c) {
            cols.push(c.to_owned());
        }
    };
    match &spec.schema {
        Some(schema) => {
            for f in schema.value_fields() {
                let col = spec.key_columns.iter().find(|(k, _)| k == f.name()).map_or(f.name(), |(_, c)| c);
                add(col);
            }
        }
        None => add(&spec.key_column),
    }
    for c in &spec.cells {
        add(&c.column);
    }
    if let Some(t) = &spec.ts_column {
        add(t);
    }
    cols
}

impl Mapping {
    /// Resolves `spec` against the input's column names; an unknown or unused column is
    /// a usage error.
    pub fn new(spec: &MappingSpec, header: &[String], default_ts: i64) -> CliResult<Mapping> {
        let find = |name: &str, what: &str| {
            header.iter().position(|h| h == name).ok_or_else(|| {
                CliError::usage(format!("unknown column `{name}` ({what}); the input has: {}", header.join(", ")))
            })
        };
        let key = match &spec.schema {
            Some(schema) => {
                for (field, _) in &spec.key_columns {
                    if !schema.value_fields().any(|f| f.name() == field) {
                        return Err(CliError::usage(format!("--key {field}=...: the schema has no field `{field}`")));
                    }
                }
                let cols = schema
                    .value_fields()
                    .map(|f| {
                        let col = spec.key_columns.iter().find(|(k, _)| k == f.name()).map_or(f.name(), |(_, c)| c);
                        find(col, &format!("key field `{}`", f.name()))
                    })
                    .collect::<CliResult<Vec<_>>>()?;
                KeyMap::Schema(Box::new(schema.clone()), cols)
            }
            None => KeyMap::Raw(find(&spec.key_column, "the row key; give --schema or --row-key")?),
        };
        let ts_col = spec.ts_column.as_deref().map(|t| find(t, "--timestamp")).transpose()?;
        let mut cells = Vec::new();
        for c in &spec.cells {
            let col = find(&c.column, "a --cell")?;
            cells.push(CellMap {
                family: c.family.clone(),
                qualifier: c.qualifier.clone(),
                col,
                ty: c.ty,
                ts_col: None,
            });
        }
        for s in &spec.skip {
            find(s, "--skip")?;
        }
        let mut m = Mapping { key, cells, ts_col, header: Vec::new(), all_cells: spec.all_cells, default_ts };
        m.extend(header, spec)?;
        Ok(m)
    }

    fn used(&self, col: usize) -> bool {
        let key = match &self.key {
            KeyMap::Schema(_, cols) => cols.contains(&col),
            KeyMap::Raw(c) => *c == col,
        };
        key || self.ts_col == Some(col) || self.cells.iter().any(|c| c.col == col || c.ts_col == Some(col))
    }

    /// Takes in header columns not seen yet (JSON lines grow the header).
    pub fn extend(&mut self, header: &[String], spec: &MappingSpec) -> CliResult {
        let from = self.header.len();
        self.header = header.to_vec();
        if self.all_cells {
            for (i, name) in header.iter().enumerate().skip(from) {
                if self.used(i) || spec.skip.contains(name) || name.ends_with("@ts") {
                    continue;
                }
                if let Some((f, q)) = name.split_once(':') {
                    let ts_name = format!("{name}@ts");
                    let ts_col = header.iter().position(|h| *h == ts_name);
                    let (family, qualifier) = (Bytes::from(unescape(f)?), Bytes::from(unescape(q)?));
                    self.cells.push(CellMap { family, qualifier, col: i, ty: CellType::Escaped, ts_col });
                }
            }
            // A `@ts` column that arrives after its cell's column (JSON lines).
            for c in &mut self.cells {
                if c.ts_col.is_none() && c.ty == CellType::Escaped {
                    let ts_name = format!("{}@ts", header[c.col]);
                    c.ts_col = header.iter().position(|h| *h == ts_name);
                }
            }
        }
        if spec.strict_columns {
            for (i, name) in header.iter().enumerate().skip(from) {
                if !self.used(i) && !spec.skip.contains(name) {
                    return Err(CliError::usage(format!(
                        "unknown column `{name}`: map it with --cell FAMILY:QUALIFIER={name}, or --skip {name}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Builds the row of one record, or says why it cannot.
    pub fn put(&self, fields: &[Option<Vec<u8>>]) -> Result<Put, String> {
        let get = |col: usize| fields.get(col).and_then(|f| f.as_deref());
        let text = |col: usize, what: &str| -> Result<&str, String> {
            let raw = get(col).ok_or_else(|| format!("no value for {what} `{}`", self.header[col]))?;
            std::str::from_utf8(raw).map_err(|_| format!("invalid UTF-8 in {what} `{}`", self.header[col]))
        };
        let key: Bytes = match &self.key {
            KeyMap::Schema(schema, cols) => {
                let mut values: Vec<Value> = Vec::with_capacity(cols.len());
                for (field, &col) in schema.value_fields().zip(cols) {
                    let t = text(col, "key field")?;
                    let v = field.parse_value(t).map_err(|e| format!("key field `{}` = {t:?}: {e}", field.name()))?;
                    values.push(v);
                }
                schema.encode(&values).map_err(|e| format!("key: {e}"))?
            }
            KeyMap::Raw(col) => Bytes::from(unescape(text(*col, "row key")?).map_err(|e| e.message)?),
        };
        if key.is_empty() {
            return Err("empty row key".to_owned());
        }
        let ts_of = |col: Option<usize>, fallback: i64| -> Result<i64, String> {
            match col.and_then(get) {
                None => Ok(fallback),
                Some(raw) => {
                    let t = std::str::from_utf8(raw).map_err(|_| "invalid UTF-8 in a timestamp".to_owned())?;
                    t.trim()
                        .parse::<i64>()
                        .ok()
                        .filter(|t| *t >= 0)
                        .ok_or_else(|| format!("timestamp {t:?} is not milliseconds since the epoch"))
                }
            }
        };
        let row_ts = ts_of(self.ts_col, self.default_ts)?;
        let mut put = Put::new(key);
        let mut n = 0;
        for c in &self.cells {
            let Some(raw) = get(c.col) else { continue };
            if raw.is_empty() && c.ty != CellType::Text && c.ty != CellType::Bytes {
                continue;
            }
            let value = c.ty.convert(raw).map_err(|e| format!("column `{}`: {e}", self.header[c.col]))?;
            let ts = ts_of(c.ts_col, row_ts)?;
            put = put.cell_at(c.family.clone(), c.qualifier.clone(), value, ts);
            n += 1;
        }
        if n == 0 {
            return Err("no cell to write (every cell column is empty)".to_owned());
        }
        Ok(put)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_specs() {
        let c = parse_cell_spec("d:dur=duration:i32").unwrap();
        assert_eq!((c.column.as_str(), c.ty), ("duration", CellType::I32));
        let c = parse_cell_spec("d:x=a:b").unwrap();
        assert_eq!((c.column.as_str(), c.ty), ("a:b", CellType::Text));
        let c = parse_cell_spec("d:type").unwrap();
        assert_eq!(c.column, "d:type");
        assert!(parse_cell_spec("nofamily").is_err());
        assert!(parse_cell_spec(":q=x").is_err());
    }

    #[test]
    fn conversions() {
        assert_eq!(CellType::I32.convert(b"61").unwrap(), vec![0, 0, 0, 61]);
        assert!(CellType::I32.convert(b"6x").unwrap_err().contains("not an i32"));
        assert!(CellType::Text.convert(&[0xff, 0xfe]).unwrap_err().contains("UTF-8"));
        assert_eq!(CellType::Escaped.convert(b"a\\x00").unwrap(), vec![b'a', 0]);
        assert_eq!(CellType::Hex.convert(b"0x00ff").unwrap(), vec![0, 255]);
    }

    #[test]
    fn unknown_and_unused_columns_are_usage_errors() {
        let header: Vec<String> = ["key", "a", "b"].map(String::from).to_vec();
        let mut spec = MappingSpec {
            key_column: "key".into(),
            cells: vec![parse_cell_spec("d:a=a").unwrap()],
            strict_columns: true,
            ..Default::default()
        };
        let e = Mapping::new(&spec, &header, 1).unwrap_err();
        assert!(e.message.contains("unknown column `b`"), "{e}");
        spec.cells.push(parse_cell_spec("d:c=c").unwrap());
        assert!(Mapping::new(&spec, &header, 1).unwrap_err().message.contains("unknown column `c`"));
        spec.cells.pop();
        spec.skip.push("b".into());
        let m = Mapping::new(&spec, &header, 7).unwrap();
        let put = m.put(&[Some(b"k".to_vec()), Some(b"v".to_vec()), None]).unwrap();
        assert_eq!(put.row().as_ref(), b"k");
    }
}
