//! Row output of `get` and `scan`: an aligned table, JSON lines or CSV, written cell by
//! cell through text buffers reused from cell to cell, so printing a row costs no more
//! memory than holding its page (a row of millions of cells included).

use std::fmt::Write as _;
use std::io::Write;

use basalt::{CellRef, Row};
use clap::{Args, ValueEnum};

use crate::keyfmt::push_shown;

/// Output formats for rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns: key, column, timestamp, value (one line per cell, every version).
    Table,
    /// One JSON object per row, the shape `basalt export` writes and `basalt import`
    /// reads: {"key": key, "family:qualifier": value, "family:qualifier@ts": timestamp,
    /// ...}, the newest version of each column.
    Json,
    /// CSV: key,column,timestamp,value (one line per cell, every version).
    Csv,
}

/// Options shared by the data commands.
#[derive(Debug, Clone, Args)]
pub struct RowOpts {
    /// Output format.
    #[arg(long, short, value_enum, default_value = "table")]
    pub output: Format,
    /// Keys and values are hex, in and out (else `\xNN`-escaped; `0x...` input is always hex).
    #[arg(long)]
    pub hex: bool,
}

/// Cells the table format holds (as rows, which are views of their pages) before it
/// prints them; the columns' widths are those of every block so far, so lines stay
/// aligned within a block and nearly so across blocks. A row with more cells than this
/// is a block of its own.
const TABLE_BLOCK_CELLS: usize = 4096;

/// Headings of the table format.
const TABLE_HEAD: [&str; 4] = ["KEY", "COLUMN", "TIMESTAMP", "VALUE"];

/// CSV (or TSV) lines written one at a time by the `csv` crate, through a buffer reused
/// from line to line: fields are quoted when they hold a separator, a quote or a line
/// break (TSV quotes nothing: its callers refuse such fields).
pub struct CsvLines {
    writer: csv::Writer<LineBuffer>,
}

/// The `csv` writer's sink: one line's bytes (the writer hands out only a shared
/// reference to its sink, so the buffer is emptied through a `RefCell`).
struct LineBuffer(std::cell::RefCell<Vec<u8>>);

impl Write for LineBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.get_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl CsvLines {
    /// Comma-separated lines, quoted as needed.
    pub fn csv() -> CsvLines {
        CsvLines::with(csv::WriterBuilder::new())
    }

    /// Tab-separated lines, never quoted.
    pub fn tsv() -> CsvLines {
        let mut builder = csv::WriterBuilder::new();
        builder.delimiter(b'\t').quote_style(csv::QuoteStyle::Never);
        CsvLines::with(builder)
    }

    fn with(mut builder: csv::WriterBuilder) -> CsvLines {
        // Lines of different lengths are fine (a header, then rows).
        builder.flexible(true);
        CsvLines { writer: builder.from_writer(LineBuffer(std::cell::RefCell::new(Vec::new()))) }
    }

    /// Writes the line of `fields`, ending in a line break, to `out`.
    pub fn write<I, T>(&mut self, out: &mut impl Write, fields: I) -> std::io::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.writer.write_record(fields).map_err(std::io::Error::other)?;
        self.writer.flush()?;
        let mut line = self.writer.get_ref().0.borrow_mut();
        let written = out.write_all(&line);
        line.clear();
        written
    }
}

/// Appends `text` to `out` as a JSON string, quotes included (by `serde_json`).
pub fn push_json_string(out: &mut String, text: &str) {
    // Serialising a string cannot fail; an empty string stands in if it ever did.
    out.push_str(&serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned()));
}

/// Writes rows in one of the formats, to stdout.
pub struct RowWriter {
    opts: RowOpts,
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    /// CSV: whether the header line was written; table: whether the headings were.
    header: bool,
    /// The current row's key, shown.
    key: String,
    /// A column or value being shown.
    field: String,
    /// The output text being built (one cell's part of a line).
    line: String,
    /// CSV lines.
    csv: CsvLines,
    /// Table format: rows waiting to be printed, and how many cells they hold.
    block: Vec<Row>,
    block_cells: usize,
    /// Table format: the widths of the key, column and timestamp so far.
    widths: [usize; 3],
}

impl RowWriter {
    /// A writer to stdout.
    pub fn new(opts: RowOpts) -> RowWriter {
        RowWriter {
            opts,
            out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
            header: false,
            key: String::new(),
            field: String::new(),
            line: String::new(),
            csv: CsvLines::csv(),
            block: Vec::new(),
            block_cells: 0,
            widths: [TABLE_HEAD[0].len(), TABLE_HEAD[1].len(), TABLE_HEAD[2].len()],
        }
    }

    /// Writes one row (the table format may hold it until its block is printed).
    pub fn row(&mut self, row: &Row) -> std::io::Result<()> {
        match self.opts.output {
            Format::Table => {
                self.block_cells += row.len();
                self.block.push(row.clone()); // a reference to its page, not a copy
                if self.block_cells >= TABLE_BLOCK_CELLS {
                    self.print_block()?;
                }
                Ok(())
            }
            Format::Json => self.json_row(row),
            Format::Csv => self.csv_row(row),
        }
    }

    /// Shows `c`'s column (`family:qualifier`) into `self.field`.
    fn show_column(&mut self, c: &CellRef<'_>) {
        self.field.clear();
        push_shown(&mut self.field, c.family(), self.opts.hex);
        self.field.push(':');
        push_shown(&mut self.field, c.qualifier(), self.opts.hex);
    }

    fn json_row(&mut self, row: &Row) -> std::io::Result<()> {
        let h = self.opts.hex;
        self.key.clear();
        push_shown(&mut self.key, row.key(), h);
        self.line.clear();
        self.line.push_str("{\"key\":");
        push_json_string(&mut self.line, &self.key);
        self.out.write_all(self.line.as_bytes())?;
        let mut previous: Option<CellRef<'_>> = None;
        for c in row.cells() {
            // Versions of a column come newest first: the first one is shown.
            if previous.is_some_and(|p| p.family() == c.family() && p.qualifier() == c.qualifier()) {
                continue;
            }
            previous = Some(c);
            self.line.clear();
            self.line.push(',');
            self.show_column(&c);
            push_json_string(&mut self.line, &self.field);
            self.line.push(':');
            let column = std::mem::take(&mut self.field);
            self.field.clear();
            push_shown(&mut self.field, c.value(), h);
            push_json_string(&mut self.line, &self.field);
            self.line.push(',');
            self.field = column;
            self.field.push_str("@ts");
            push_json_string(&mut self.line, &self.field);
            let _ = write!(self.line, ":{}", c.timestamp());
            self.out.write_all(self.line.as_bytes())?;
        }
        self.out.write_all(b"}\n")
    }

    fn csv_row(&mut self, row: &Row) -> std::io::Result<()> {
        if !self.header {
            self.header = true;
            self.csv.write(&mut self.out, ["key", "column", "timestamp", "value"])?;
        }
        let h = self.opts.hex;
        self.key.clear();
        push_shown(&mut self.key, row.key(), h);
        for c in row.cells() {
            self.show_column(&c);
            self.line.clear();
            push_shown(&mut self.line, c.value(), h);
            let timestamp = c.timestamp().to_string();
            let fields = [self.key.as_str(), self.field.as_str(), timestamp.as_str(), self.line.as_str()];
            self.csv.write(&mut self.out, fields)?;
        }
        Ok(())
    }

    /// Table format: widens the columns to the held rows, then prints them (after the
    /// headings, the first time).
    fn print_block(&mut self) -> std::io::Result<()> {
        let block = std::mem::take(&mut self.block);
        self.block_cells = 0;
        let h = self.opts.hex;
        for row in &block {
            self.key.clear();
            push_shown(&mut self.key, row.key(), h);
            self.widths[0] = self.widths[0].max(self.key.len());
            for c in row.cells() {
                self.show_column(&c);
                self.widths[1] = self.widths[1].max(self.field.len());
                self.line.clear();
                let _ = write!(self.line, "{}", c.timestamp());
                self.widths[2] = self.widths[2].max(self.line.len());
            }
        }
        if !self.header {
            self.header = true;
            let [k, c, t, v] = TABLE_HEAD;
            let [w0, w1, w2] = self.widths;
            writeln!(self.out, "{k:<w0$}  {c:<w1$}  {t:>w2$}  {v}")?;
        }
        let [w0, w1, w2] = self.widths;
        for row in &block {
            self.key.clear();
            push_shown(&mut self.key, row.key(), h);
            for c in row.cells() {
                self.line.clear();
                let _ = write!(self.line, "{:<w0$}  ", self.key);
                self.show_column(&c);
                let _ = write!(self.line, "{:<w1$}  {:>w2$}  ", self.field, c.timestamp());
                push_shown(&mut self.line, c.value(), h);
                self.line.push('\n');
                self.out.write_all(self.line.as_bytes())?;
            }
        }
        Ok(())
    }

    /// Prints what the table format still holds, and flushes.
    pub fn finish(mut self) -> std::io::Result<()> {
        if !self.block.is_empty() {
            self.print_block()?;
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\x00\n");
        assert_eq!(s, r#""a\"b\\x00\n""#);
        let v: serde_json::Value = serde_json::from_str(&s).expect("valid JSON");
        assert_eq!(v, "a\"b\\x00\n");
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        let mut csv = CsvLines::csv();
        let mut out = Vec::new();
        csv.write(&mut out, ["plain", "a,\"b\""]).unwrap();
        csv.write(&mut out, ["x"]).unwrap();
        assert_eq!(out, b"plain,\"a,\"\"b\"\"\"\nx\n");
        let mut out = Vec::new();
        CsvLines::tsv().write(&mut out, ["a b", "c,d"]).unwrap();
        assert_eq!(out, b"a b\tc,d\n");
    }
}
