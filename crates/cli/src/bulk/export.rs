//! `basalt export`: a table or a salted query to CSV, TSV or JSON lines, with the key's
//! fields decoded into columns, ordered or not, resumable from a cursor.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use basalt::{Client, Row, RowStream, SaltedCursor, SaltedStream, Scan};
use basalt_rowkey::Schema;
use clap::Args;
use flate2::write::GzEncoder;
use flate2::Compression;
use futures::StreamExt;

use crate::bulk::{cell_text, progress, rate, value_text, write_atomic, TextFormat};
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, hex, parse_hex_digits, thousands};
use crate::keys::{build_query, load_schema, QueryArgs};
use crate::output::{push_json_string, CsvLines};

/// `basalt export`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    basalt export telecom:calls --schema calls.toml -o calls.csv\n  \
    basalt export telecom:calls --schema calls.toml --fixed 13812345678 --from 20210901000000 \
    --to 20211200000000 --format json\n  \
    basalt export telecom:calls --schema calls.toml --unordered --timestamps -o all.jsonl.gz --cursor-file all.cursor\n  \
    basalt export telecom:calls --schema calls.toml --unordered --timestamps -o all.jsonl.gz --cursor-file all.cursor --resume")]
pub struct ExportArgs {
    /// Table to read.
    table: String,
    /// Output file (default stdout); `.gz` compresses.
    #[arg(long, short, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Output format (default: from the file name, else csv).
    #[arg(long, short, value_enum)]
    format: Option<TextFormat>,
    /// Schema file (TOML): decode keys into field columns; the query options need it.
    #[arg(long, short)]
    schema: Option<PathBuf>,
    #[command(flatten)]
    query: QueryArgs,
    /// Only these columns (family:qualifier, comma-separated); also the CSV/TSV header.
    #[arg(long, value_delimiter = ',')]
    columns: Vec<String>,
    /// Rows as they arrive from any bucket (faster), not in key order.
    #[arg(long)]
    unordered: bool,
    /// Add COLUMN@ts with each cell's timestamp (re-imports to identical versions).
    #[arg(long)]
    timestamps: bool,
    /// Compress with gzip (default when the output ends with .gz).
    #[arg(long)]
    gzip: bool,
    /// Save the cursor here as the export goes (and the output's length).
    #[arg(long, value_name = "PATH")]
    cursor_file: Option<PathBuf>,
    /// Continue the export recorded in --cursor-file, appending to --output.
    #[arg(long, requires_all = ["cursor_file", "output"])]
    resume: bool,
    /// Continue after this cursor token (printed by an interrupted export).
    #[arg(long, value_name = "TOKEN", conflicts_with = "resume")]
    after: Option<String>,
    /// CSV/TSV without --columns: the header lists the columns of the first N rows.
    #[arg(long, default_value_t = 1000)]
    sample: usize,
    /// Rows per round trip.
    #[arg(long, default_value_t = 1000)]
    caching: u32,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

/// Where the text goes: a file or stdout.
enum Dest {
    File(File),
    Stdout(std::io::Stdout),
}

impl Write for Dest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Dest::File(f) => f.write(buf),
            Dest::Stdout(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Dest::File(f) => f.flush(),
            Dest::Stdout(s) => s.flush(),
        }
    }
}

/// The output, optionally gzip; [`Out::settle`] makes what was written readable as is
/// (a complete gzip member) and says the file's length.
struct Out {
    plain: Option<BufWriter<Dest>>,
    gz: Option<GzEncoder<BufWriter<Dest>>>,
    gzip: bool,
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match (&mut self.gz, &mut self.plain) {
            (Some(g), _) => g.write(buf),
            (None, Some(p)) => p.write(buf),
            (None, None) => Err(std::io::Error::other("output closed")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match (&mut self.gz, &mut self.plain) {
            (Some(g), _) => g.flush(),
            (None, Some(p)) => p.flush(),
            (None, None) => Ok(()),
        }
    }
}

impl Out {
    fn new(dest: Dest, gzip: bool) -> Out {
        let w = BufWriter::with_capacity(1 << 16, dest);
        if gzip {
            Out { plain: None, gz: Some(GzEncoder::new(w, Compression::fast())), gzip }
        } else {
            Out { plain: Some(w), gz: None, gzip }
        }
    }

    /// Flushes everything to the file (ending the gzip member; with `more`, a new one
    /// starts) and gives the file's length (0 for stdout).
    fn settle(&mut self, more: bool) -> std::io::Result<u64> {
        let mut w = match self.gz.take() {
            Some(g) => g.finish()?,
            None => self.plain.take().ok_or_else(|| std::io::Error::other("output closed"))?,
        };
        w.flush()?;
        let len = match w.get_ref() {
            Dest::File(f) => f.metadata()?.len(),
            Dest::Stdout(_) => 0,
        };
        if more {
            if self.gzip {
                self.gz = Some(GzEncoder::new(w, Compression::fast()));
            } else {
                self.plain = Some(w);
            }
        }
        Ok(len)
    }
}

/// Rows of a salted query or of a plain table scan.
enum Source {
    Salted(Box<SaltedStream>),
    Plain(RowStream, Option<basalt::Bytes>),
}

impl Source {
    async fn next(&mut self) -> CliResult<Option<Row>> {
        match self {
            Source::Salted(s) => Ok(s.next().await.transpose()?.map(|r| r.row)),
            Source::Plain(s, last) => {
                let row = s.next().await.transpose()?;
                if let Some(r) = &row {
                    *last = Some(r.key_bytes());
                }
                Ok(row)
            }
        }
    }

    fn token(&self) -> String {
        match self {
            Source::Salted(s) => s.cursor().to_token(),
            Source::Plain(_, Some(k)) => format!("key.{}", &hex(k)[2..]),
            Source::Plain(_, None) => "key.".to_owned(),
        }
    }
}

async fn open_source(
    args: &ExportArgs,
    client: &Client,
    schema: Option<&Schema>,
    template: Scan,
    after: Option<&str>,
) -> CliResult<Source> {
    let table = client.table(&args.table)?;
    match schema {
        Some(schema) => {
            let query = build_query(schema, &args.query, false)?;
            let mut scan = table
                .salted(schema.clone())
                .cursor_key(crate::merge::cursor_key()?)
                .scan(query)
                .template(template)
                .ordered(!args.unordered);
            if let Some(token) = after {
                scan = scan.resume(SaltedCursor::from_token(token)?);
            }
            Ok(Source::Salted(Box::new(scan.stream().await?)))
        }
        None => {
            if !args.query.fixed.is_empty() || args.query.from.is_some() || args.query.to.is_some() {
                return Err(CliError::usage("--fixed/--from/--to need --schema"));
            }
            let mut scan = template;
            let mut last = None;
            if let Some(token) = after {
                let hexkey =
                    token.strip_prefix("key.").ok_or_else(|| CliError::usage("not a cursor of a plain export"))?;
                let mut start = parse_hex_digits(hexkey)?;
                if !start.is_empty() {
                    last = Some(basalt::Bytes::from(start.clone()));
                    start.push(0);
                    scan = scan.start(start);
                }
            }
            Ok(Source::Plain(table.scan(scan)?, last))
        }
    }
}

/// A CSV line (RFC 4180 quoting when needed) or a TSV line (no quoting).
struct Delimited {
    lines: CsvLines,
}

impl Delimited {
    fn write(&mut self, out: &mut Out, fields: &[String]) -> CliResult {
        self.lines.write(out, fields)?;
        Ok(())
    }
}

fn column_name(family: &[u8], qualifier: &[u8]) -> String {
    format!("{}:{}", cell_text(family), cell_text(qualifier))
}

/// Key columns plus cell columns (and their `@ts` twins).
struct Layout {
    key_names: Vec<String>,
    cells: Vec<String>,
    timestamps: bool,
}

impl Layout {
    fn header(&self) -> Vec<String> {
        let mut h = self.key_names.clone();
        for c in &self.cells {
            h.push(c.clone());
            if self.timestamps {
                h.push(format!("{c}@ts"));
            }
        }
        h
    }
}

fn key_fields(schema: Option<&Schema>, row: &Row) -> CliResult<Vec<String>> {
    match schema {
        Some(s) => {
            let d = s
                .decode(row.key())
                .map_err(|e| CliError::failed(format!("row {} does not fit the schema: {e}", escape(row.key()))))?;
            Ok(d.values.iter().map(value_text).collect())
        }
        None => Ok(vec![escape(row.key())]),
    }
}

fn write_row(
    out: &mut Out,
    csv: &mut Option<Delimited>,
    layout: &Layout,
    schema: Option<&Schema>,
    row: &Row,
    tsv: bool,
) -> CliResult {
    let keys = key_fields(schema, row)?;
    match csv {
        None => {
            // One object per row, written member by member (a row of millions of cells
            // costs no more than its page): the key fields, then each column (its
            // newest version) and, with --timestamps, its `@ts` twin.
            let mut text = String::from("{");
            let mut first = true;
            for (name, v) in layout.key_names.iter().zip(keys) {
                if !std::mem::take(&mut first) {
                    text.push(',');
                }
                push_json_string(&mut text, name);
                text.push(':');
                push_json_string(&mut text, &v);
            }
            out.write_all(text.as_bytes())?;
            let mut previous: Option<basalt::CellRef<'_>> = None;
            for c in row.cells() {
                if previous.is_some_and(|p| p.family() == c.family() && p.qualifier() == c.qualifier()) {
                    continue;
                }
                previous = Some(c);
                let name = column_name(c.family(), c.qualifier());
                text.clear();
                if !std::mem::take(&mut first) {
                    text.push(',');
                }
                push_json_string(&mut text, &name);
                text.push(':');
                push_json_string(&mut text, &cell_text(c.value()));
                if layout.timestamps {
                    text.push(',');
                    push_json_string(&mut text, &format!("{name}@ts"));
                    text.push(':');
                    text.push_str(&c.timestamp().to_string());
                }
                out.write_all(text.as_bytes())?;
            }
            out.write_all(b"}\n")?;
        }
        Some(w) => {
            if tsv && keys.iter().any(|k| k.contains(['\t', '\n', '\r'])) {
                return Err(CliError::failed(format!(
                    "row {}: a key field holds a tab or a line break; export it as csv or json",
                    escape(row.key())
                )));
            }
            let mut fields: Vec<String> = keys;
            let mut values: Vec<Option<(String, i64)>> = vec![None; layout.cells.len()];
            for c in row.cells() {
                let name = column_name(c.family(), c.qualifier());
                let Some(i) = layout.cells.iter().position(|x| *x == name) else {
                    return Err(CliError::failed(format!(
                        "row {} has column {name} that is not in the header (made from the first rows): \
                         name every column with --columns, or use --format json",
                        escape(row.key())
                    )));
                };
                values[i] = Some((cell_text(c.value()), c.timestamp()));
            }
            for v in values {
                match v {
                    Some((text, ts)) => {
                        fields.push(text);
                        if layout.timestamps {
                            fields.push(ts.to_string());
                        }
                    }
                    None => {
                        fields.push(String::new());
                        if layout.timestamps {
                            fields.push(String::new());
                        }
                    }
                }
            }
            w.write(out, &fields)?;
        }
    }
    Ok(())
}

/// What `--cursor-file` holds.
fn save_cursor(path: &Path, table: &str, token: &str, header: &[String], rows: u64, len: u64, done: bool) -> CliResult {
    let v = serde_json::json!({ "table": table, "token": token, "header": header, "rows": rows, "output_len": len, "done": done });
    write_atomic(path, &format!("{v}\n"))
}

struct Resume {
    token: String,
    header: Vec<String>,
    rows: u64,
    len: u64,
}

fn load_cursor(path: &Path, table: &str) -> CliResult<Option<Resume>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CliError::failed(format!("cannot read {}: {e}", path.display()))),
    };
    let bad = || CliError::usage(format!("cursor file {} is damaged", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|_| bad())?;
    if v.get("table").and_then(|t| t.as_str()) != Some(table) {
        return Err(CliError::usage(format!("cursor file {} belongs to another table", path.display())));
    }
    if v.get("done").and_then(|d| d.as_bool()) == Some(true) {
        return Err(CliError::usage(format!("the export in {} is complete: nothing to resume", path.display())));
    }
    let header = v.get("header").and_then(|h| h.as_array()).ok_or_else(bad)?;
    Ok(Some(Resume {
        token: v.get("token").and_then(|t| t.as_str()).ok_or_else(bad)?.to_owned(),
        header: header.iter().map(|h| h.as_str().map(str::to_owned).ok_or_else(bad)).collect::<CliResult<_>>()?,
        rows: v.get("rows").and_then(|r| r.as_u64()).ok_or_else(bad)?,
        len: v.get("output_len").and_then(|r| r.as_u64()).ok_or_else(bad)?,
    }))
}

/// Runs `basalt export`.
pub async fn run(args: ExportArgs, client: &Client) -> CliResult {
    let name = args.output.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    let gzip = args.gzip || name.ends_with(".gz");
    let base = name.strip_suffix(".gz").unwrap_or(&name).to_ascii_lowercase();
    let format = args.format.unwrap_or(if base.ends_with(".json") || base.ends_with(".jsonl") {
        TextFormat::Json
    } else if base.ends_with(".tsv") {
        TextFormat::Tsv
    } else {
        TextFormat::Csv
    });
    let schema = args.schema.as_deref().map(load_schema).transpose()?;
    let resume = match (&args.cursor_file, args.resume) {
        (Some(p), true) => Some(
            load_cursor(p, &args.table)?
                .ok_or_else(|| CliError::usage(format!("no cursor file {}: nothing to resume", p.display())))?,
        ),
        _ => None,
    };
    let mut template = Scan::new().caching(args.caching.max(1));
    for c in args.columns.iter().filter(|c| !c.is_empty()) {
        let (f, q) = crate::keyfmt::parse_column(c)?;
        template = match q {
            Some(q) => template.column(f, q),
            None => template.family(f),
        };
    }
    let after = resume.as_ref().map(|r| r.token.clone()).or(args.after.clone());
    let mut source = open_source(&args, client, schema.as_ref(), template, after.as_deref()).await?;

    let dest = match &args.output {
        None => Dest::Stdout(std::io::stdout()),
        Some(p) => {
            let f = match &resume {
                Some(r) => {
                    let f = OpenOptions::new().write(true).open(p)?;
                    f.set_len(r.len)?;
                    OpenOptions::new().append(true).open(p)?
                }
                None => File::create(p).map_err(|e| CliError::usage(format!("cannot create {}: {e}", p.display())))?,
            };
            Dest::File(f)
        }
    };
    let mut out = Out::new(dest, gzip);
    let key_names: Vec<String> = match &schema {
        Some(s) => s.value_fields().map(|f| f.name().to_owned()).collect(),
        None => vec!["key".to_owned()],
    };
    let explicit: Vec<String> = args.columns.iter().filter(|c| c.contains(':')).cloned().collect();
    let delimited = format != TextFormat::Json;
    let mut csv = delimited
        .then(|| Delimited { lines: if format == TextFormat::Tsv { CsvLines::tsv() } else { CsvLines::csv() } });
    // The CSV/TSV header: given, resumed, or from the first rows.
    let mut buffered: Vec<Row> = Vec::new();
    let cells: Vec<String> = if let Some(r) = &resume {
        let per = if args.timestamps { 2 } else { 1 };
        r.header.iter().skip(key_names.len()).step_by(per).cloned().collect()
    } else if !explicit.is_empty() || !delimited {
        explicit
    } else {
        let mut seen = BTreeSet::new();
        while buffered.len() < args.sample.max(1) {
            match source.next().await? {
                Some(row) => {
                    seen.extend(row.cells().map(|c| column_name(c.family(), c.qualifier())));
                    buffered.push(row);
                }
                None => break,
            }
        }
        seen.into_iter().collect()
    };
    let layout = Layout { key_names, cells, timestamps: args.timestamps };
    let header = layout.header();
    if let (Some(w), None) = (&mut csv, &resume) {
        w.write(&mut out, &header)?;
    }
    let bar = progress(None, args.quiet || args.output.is_none());
    let start = Instant::now();
    let mut rows = resume.as_ref().map_or(0, |r| r.rows);
    let mut last_save = Instant::now();
    let tsv = format == TextFormat::Tsv;
    let mut pending = buffered.into_iter();
    let result: CliResult = async {
        loop {
            let row = match pending.next() {
                Some(r) => r,
                None => match source.next().await? {
                    Some(r) => r,
                    None => break,
                },
            };
            write_row(&mut out, &mut csv, &layout, schema.as_ref(), &row, tsv)?;
            rows += 1;
            if rows % 1000 == 0 {
                bar.set_message(format!("{} rows, {} rows/s", thousands(rows), thousands(rate(rows, start))));
            }
            if pending.len() == 0 && last_save.elapsed().as_secs() >= 1 {
                if let Some(p) = &args.cursor_file {
                    let len = out.settle(true)?;
                    save_cursor(p, &args.table, &source.token(), &header, rows, len, false)?;
                }
                last_save = Instant::now();
            }
        }
        Ok(())
    }
    .await;
    bar.finish_and_clear();
    if let Err(mut e) = result {
        if pending.len() == 0 {
            let len = out.settle(false).unwrap_or(0);
            let token = source.token();
            if let Some(p) = &args.cursor_file {
                save_cursor(p, &args.table, &token, &header, rows, len, false)?;
            }
            e.message = format!("{}; {} rows exported; continue with --after {token}", e.message, thousands(rows));
        }
        return Err(e);
    }
    let len = out.settle(false).map_err(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError { code: 0, message: String::new() }
        } else {
            CliError::failed(format!("writing output: {e}"))
        }
    })?;
    if let Some(p) = &args.cursor_file {
        save_cursor(p, &args.table, &source.token(), &header, rows, len, true)?;
    }
    eprintln!(
        "exported {} rows from {} in {:.1}s ({} rows/s)",
        thousands(rows),
        args.table,
        start.elapsed().as_secs_f64(),
        thousands(rate(rows, start))
    );
    Ok(())
}
