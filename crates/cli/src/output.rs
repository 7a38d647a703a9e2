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
    /// One JSON object per row: {"key", "columns": {column: {"value", "timestamp"}}},
    /// the newest version of each column.
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

/// Appends `field` to a CSV line, quoted when it holds a separator, a quote or a line break.
fn push_csv_field(line: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        line.push('"');
        for c in field.chars() {
            if c == '"' {
                line.push('"');
            }
            line.push(c);
        }
        line.push('"');
    } else {
        line.push_str(field);
    }
}

/// Appends `text` to `out` as a JSON string, quotes included.
pub fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c)); // writing to a String cannot fail
            }
            c => out.push(c),
        }
    }
    out.push('"');
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
        self.line.push_str(",\"columns\":{");
        self.out.write_all(self.line.as_bytes())?;
        let mut previous: Option<CellRef<'_>> = None;
        for c in row.cells() {
            // Versions of a column come newest first: the first one is shown.
            if previous.is_some_and(|p| p.family() == c.family() && p.qualifier() == c.qualifier()) {
                continue;
            }
            self.line.clear();
            if previous.is_some() {
                self.line.push(',');
            }
            previous = Some(c);
            self.show_column(&c);
            push_json_string(&mut self.line, &self.field);
            self.line.push_str(":{\"value\":");
            self.field.clear();
            push_shown(&mut self.field, c.value(), h);
            push_json_string(&mut self.line, &self.field);
            let _ = write!(self.line, ",\"timestamp\":{}}}", c.timestamp());
            self.out.write_all(self.line.as_bytes())?;
        }
        self.out.write_all(b"}}\n")
    }

    fn csv_row(&mut self, row: &Row) -> std::io::Result<()> {
        if !self.header {
            self.header = true;
            self.out.write_all(b"key,column,timestamp,value\n")?;
        }
        let h = self.opts.hex;
        self.key.clear();
        push_shown(&mut self.key, row.key(), h);
        for c in row.cells() {
            self.line.clear();
            push_csv_field(&mut self.line, &self.key);
            self.line.push(',');
            self.show_column(&c);
            push_csv_field(&mut self.line, &self.field);
            let _ = write!(self.line, ",{},", c.timestamp());
            self.field.clear();
            push_shown(&mut self.field, c.value(), h);
            push_csv_field(&mut self.line, &self.field);
            self.line.push('\n');
            self.out.write_all(self.line.as_bytes())?;
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
        assert_eq!(s, r#""a\"b\\x00\u000a""#);
        let v: serde_json::Value = serde_json::from_str(&s).expect("valid JSON");
        assert_eq!(v, "a\"b\\x00\n");
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        let mut s = String::new();
        push_csv_field(&mut s, "plain");
        s.push(',');
        push_csv_field(&mut s, "a,\"b\"");
        assert_eq!(s, "plain,\"a,\"\"b\"\"\"");
    }
}
