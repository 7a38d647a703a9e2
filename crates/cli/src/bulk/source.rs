//! Import input: a file or stdin, gzip detected by its magic bytes, read as CSV, TSV or
//! JSON lines into records with their line number and the byte position where they end
//! (in the decompressed text: the resume watermark).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::read::MultiGzDecoder;

use crate::bulk::TextFormat;
use crate::error::{CliError, CliResult};

/// Counts the raw bytes read (before decompression), for the progress bar.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened input: the decompressed byte stream and what is known about its size.
pub struct Input {
    /// The text, decompressed.
    pub stream: Box<dyn Read + Send>,
    /// The size on disk (a regular file), for the ETA; `None` when piped.
    pub size: Option<u64>,
    /// Raw bytes read so far (compressed bytes for gzip).
    pub raw_read: Arc<AtomicU64>,
}

/// Opens `path` (`-` is stdin); gzip when `force_gzip` or when it starts with 1f 8b.
pub fn open(path: &str, force_gzip: bool) -> CliResult<Input> {
    let raw_read = Arc::new(AtomicU64::new(0));
    let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if path == "-" {
        (Box::new(std::io::stdin()), None)
    } else {
        let f = File::open(Path::new(path)).map_err(|e| CliError::usage(format!("cannot open input {path}: {e}")))?;
        let meta = f.metadata().ok();
        let size = meta.filter(|m| m.is_file()).map(|m| m.len());
        (Box::new(f), size)
    };
    let mut buffered = BufReader::with_capacity(1 << 16, Counting { inner: raw, read: Arc::clone(&raw_read) });
    let head = buffered.fill_buf().map_err(|e| CliError::failed(format!("reading input {path}: {e}")))?;
    let gzip = force_gzip || head.starts_with(&[0x1f, 0x8b]);
    let stream: Box<dyn Read + Send> = if gzip { Box::new(MultiGzDecoder::new(buffered)) } else { Box::new(buffered) };
    Ok(Input { stream, size, raw_read })
}

/// One item of the input.
#[derive(Debug)]
pub enum Item {
    /// A record: one value per column of [`RecordReader::header`] (`None`: absent).
    Record {
        /// Line number where the record starts (1-based).
        line: u64,
        /// Byte position just after the record.
        end: u64,
        /// The values, by column.
        fields: Vec<Option<Vec<u8>>>,
    },
    /// A record that cannot be read as one (wrong field count, bad JSON).
    Bad {
        /// Line number where it starts.
        line: u64,
        /// Byte position just after it.
        end: u64,
        /// Why.
        reason: String,
        /// Its text, for the reject file.
        raw: String,
    },
}

enum Kind {
    Delimited(csv::Reader<Box<dyn Read + Send>>, csv::ByteRecord, u8),
    Json(BufReader<Box<dyn Read + Send>>, Vec<u8>, u64, u64),
}

/// Reads records of one format; the header is fixed for CSV/TSV and grows with new
/// keys for JSON lines.
pub struct RecordReader {
    kind: Kind,
    header: Vec<String>,
    index: std::collections::HashMap<String, usize>,
}

fn read_err(e: impl std::fmt::Display) -> CliError {
    CliError::failed(format!("reading input: {e}"))
}

fn joined(rec: &csv::ByteRecord, delim: u8) -> String {
    let parts: Vec<String> = rec.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    parts.join(&char::from(delim).to_string())
}

impl RecordReader {
    /// A reader of `format` over `stream`. For CSV/TSV the column names are `columns`
    /// when given (then a first line is skipped only if `header_line`), else the first
    /// line. For JSON lines, `columns` are registered first.
    pub fn new(
        stream: Box<dyn Read + Send>,
        format: TextFormat,
        columns: &[String],
        header_line: bool,
    ) -> CliResult<RecordReader> {
        let mut header: Vec<String> = columns.to_vec();
        let kind = match format {
            TextFormat::Csv | TextFormat::Tsv => {
                let delim = if format == TextFormat::Csv { b',' } else { b'\t' };
                let mut rdr = csv::ReaderBuilder::new()
                    .delimiter(delim)
                    .quoting(format == TextFormat::Csv)
                    .has_headers(false)
                    .flexible(true)
                    .buffer_capacity(1 << 16)
                    .from_reader(stream);
                let mut rec = csv::ByteRecord::new();
                if columns.is_empty() || header_line {
                    if !rdr.read_byte_record(&mut rec).map_err(read_err)? {
                        return Err(CliError::usage("the input is empty: no header line"));
                    }
                    if columns.is_empty() {
                        header = rec
                            .iter()
                            .map(|f| {
                                std::str::from_utf8(f)
                                    .map(|s| s.trim().to_owned())
                                    .map_err(|_| CliError::usage("the header line is not UTF-8 text"))
                            })
                            .collect::<CliResult<_>>()?;
                        if let Some(first) = header.first_mut() {
                            // A UTF-8 byte order mark is not part of the first name.
                            *first = first.trim_start_matches('\u{feff}').to_owned();
                        }
                    }
                }
                Kind::Delimited(rdr, rec, delim)
            }
            TextFormat::Json => Kind::Json(BufReader::with_capacity(1 << 16, stream), Vec::new(), 0, 0),
        };
        let mut index = std::collections::HashMap::new();
        for (i, name) in header.iter().enumerate() {
            if index.insert(name.clone(), i).is_some() {
                return Err(CliError::usage(format!("column `{name}` appears twice in the header")));
            }
        }
        Ok(RecordReader { kind, header, index })
    }

    /// The column names (JSON lines: every key seen so far).
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The next item, `None` at the end of the input.
    pub fn next_item(&mut self) -> CliResult<Option<Item>> {
        match &mut self.kind {
            // A loop, not recursion: an input of many blank records must not grow the stack.
            Kind::Delimited(rdr, rec, delim) => loop {
                if !rdr.read_byte_record(rec).map_err(read_err)? {
                    return Ok(None);
                }
                let line = rec.position().map_or(0, |p| p.line());
                let end = rdr.position().byte();
                if rec.len() == 1 && rec.get(0).is_some_and(|f| f.is_empty()) {
                    // A blank line is no record.
                    continue;
                }
                if rec.len() != self.header.len() {
                    return Ok(Some(Item::Bad {
                        line,
                        end,
                        reason: format!("{} fields, the header has {}", rec.len(), self.header.len()),
                        raw: joined(rec, *delim),
                    }));
                }
                return Ok(Some(Item::Record { line, end, fields: rec.iter().map(|f| Some(f.to_vec())).collect() }));
            },
            Kind::Json(rdr, buf, pos, lines) => loop {
                buf.clear();
                let n = rdr.read_until(b'\n', buf).map_err(read_err)?;
                if n == 0 {
                    return Ok(None);
                }
                *pos += n as u64;
                *lines += 1;
                let (line, end) = (*lines, *pos);
                let text = buf.strip_suffix(b"\n").unwrap_or(buf);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let raw = || String::from_utf8_lossy(text).into_owned();
                let obj = match serde_json::from_slice::<serde_json::Value>(text) {
                    Ok(serde_json::Value::Object(m)) => m,
                    Ok(_) => {
                        let reason = "not a JSON object".to_owned();
                        return Ok(Some(Item::Bad { line, end, reason, raw: raw() }));
                    }
                    Err(e) => {
                        let reason = format!("bad JSON: {e}");
                        return Ok(Some(Item::Bad { line, end, reason, raw: raw() }));
                    }
                };
                let mut fields: Vec<Option<Vec<u8>>> = vec![None; self.header.len()];
                for (k, v) in obj {
                    let i = match self.index.get(&k) {
                        Some(&i) => i,
                        None => {
                            self.index.insert(k.clone(), self.header.len());
                            self.header.push(k);
                            fields.push(None);
                            self.header.len() - 1
                        }
                    };
                    fields[i] = match v {
                        serde_json::Value::Null => None,
                        serde_json::Value::String(s) => Some(s.into_bytes()),
                        other => Some(other.to_string().into_bytes()),
                    };
                }
                return Ok(Some(Item::Record { line, end, fields }));
            },
        }
    }
}

/// Reads and drops items until the position `offset` (a resume watermark); fails if
/// no record ends exactly there (the input changed since the checkpoint).
pub fn skip_to(reader: &mut RecordReader, offset: u64) -> CliResult<()> {
    if offset == 0 {
        return Ok(());
    }
    let mismatch = || {
        CliError::usage(format!(
            "the checkpoint says {offset} bytes were imported, but no record of this input ends there: \
             was the input changed? (delete the checkpoint to start over)"
        ))
    };
    loop {
        let end = match reader.next_item()? {
            None => return Err(mismatch()),
            Some(Item::Record { end, .. }) | Some(Item::Bad { end, .. }) => end,
        };
        if end == offset {
            return Ok(());
        }
        if end > offset {
            return Err(mismatch());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(text: &'static str, format: TextFormat) -> RecordReader {
        RecordReader::new(Box::new(text.as_bytes()), format, &[], true).unwrap()
    }

    #[test]
    fn csv_records_lines_and_bad_field_counts() {
        let mut r = reader("a,b\n1,2\n\"x\ny\",3\n4\n5,6\n", TextFormat::Csv);
        assert_eq!(r.header(), ["a", "b"]);
        let mut got = Vec::new();
        while let Some(item) = r.next_item().unwrap() {
            got.push(match item {
                Item::Record { line, end, .. } => format!("ok {line} {end}"),
                Item::Bad { line, end, reason, .. } => format!("bad {line} {end} {reason}"),
            });
        }
        assert_eq!(got, ["ok 2 8", "ok 3 16", "bad 5 18 1 fields, the header has 2", "ok 6 22"]);
    }

    #[test]
    fn json_lines_grow_the_header_and_reject_garbage() {
        let mut r = reader("{\"a\":\"1\",\"n\":5}\n\n{oops\n{\"b\":null,\"a\":\"2\"}\n", TextFormat::Json);
        let Some(Item::Record { fields, .. }) = r.next_item().unwrap() else { panic!() };
        assert_eq!(fields, vec![Some(b"1".to_vec()), Some(b"5".to_vec())]);
        assert!(matches!(r.next_item().unwrap(), Some(Item::Bad { line: 3, .. })));
        let Some(Item::Record { fields, end, .. }) = r.next_item().unwrap() else { panic!() };
        assert_eq!(fields, vec![Some(b"2".to_vec()), None, None]);
        assert_eq!(end, 42);
        assert_eq!(r.header(), ["a", "n", "b"]);
    }

    #[test]
    fn many_blank_lines_do_not_overflow_the_stack() {
        // `""` is one empty field: a blank record, skipped. Run on a small stack, as a
        // runtime worker thread has.
        let text = format!("a,b\n{}1,2\n", "\"\"\n".repeat(200_000));
        let got = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let mut r =
                    RecordReader::new(Box::new(std::io::Cursor::new(text)), TextFormat::Csv, &[], true).unwrap();
                match r.next_item().unwrap() {
                    Some(Item::Record { fields, .. }) => fields,
                    other => panic!("{other:?}"),
                }
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(got, [Some(b"1".to_vec()), Some(b"2".to_vec())]);
    }

    #[test]
    fn skip_to_needs_a_record_boundary() {
        let mut r = reader("a\n1\n2\n3\n", TextFormat::Csv);
        skip_to(&mut r, 6).unwrap();
        assert!(matches!(r.next_item().unwrap(), Some(Item::Record { line: 4, .. })));
        let mut r = reader("a\n1\n2\n3\n", TextFormat::Csv);
        assert!(skip_to(&mut r, 5).is_err());
    }
}
