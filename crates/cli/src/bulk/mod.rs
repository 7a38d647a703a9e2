//! Data in and out at scale: `basalt import`, `basalt export`, `basalt count`,
//! `basalt copy`.
//!
//! Shared here: the text formats, the text form of key values and cell values (one
//! form that export writes and import reads back byte for byte), atomic small files
//! (checkpoints and cursors) and the progress line.

pub mod checkpoint;
pub mod copy;
pub mod count;
pub mod export;
pub mod import;
pub mod mapping;
pub mod source;

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use basalt_rowkey::Value;
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, hex};

/// Text formats of `import` and `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    /// Comma-separated values with RFC 4180 quoting; a header line names the columns.
    Csv,
    /// Tab-separated values, no quoting (values are escaped on export); a header line.
    Tsv,
    /// One JSON object per line: `{"column": "value", ...}`.
    Json,
}

/// Most rows `--batch` accepts.
pub const MAX_BATCH_ROWS: usize = 1_000_000;
/// Most writes `--concurrency` keeps in flight (each holds a pooled connection).
pub const MAX_CONCURRENCY: usize = 1024;

/// Checks `--batch` and `--concurrency`: they size buffers, channels and the pool.
pub fn check_batch_and_concurrency(batch: usize, concurrency: usize) -> CliResult {
    if !(1..=MAX_BATCH_ROWS).contains(&batch) || !(1..=MAX_CONCURRENCY).contains(&concurrency) {
        return Err(CliError::usage(format!(
            "--batch must be 1..={MAX_BATCH_ROWS} and --concurrency 1..={MAX_CONCURRENCY} \
             (given {batch} and {concurrency})"
        )));
    }
    Ok(())
}

/// The text form of a key field's value that `Field::parse_value` reads back: numbers
/// in decimal, strings as they are, bytes as `0x` hex.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::UInt(n) => n.to_string(),
        Value::Int(n) => n.to_string(),
        Value::F32(f) => f.to_string(),
        Value::F64(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Bytes(b) => hex(b),
        Value::Str(s) => s.clone(),
        Value::Timestamp(t) => t.to_string(),
    }
}

/// The text form of a cell value: UTF-8 text without backslashes or control
/// characters as it is, anything else `\xNN`-escaped (read back by the `escaped` type).
pub fn cell_text(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) if !s.chars().any(|c| c == '\\' || c.is_control()) => s.to_owned(),
        _ => escape(b),
    }
}

/// Writes `text` to `path` atomically: a temporary file beside it, then a rename, so a
/// reader (or a resumed run) sees the old content or the new, never half of one.
pub fn write_atomic(path: &Path, text: &str) -> CliResult {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| CliError::failed(format!("cannot write {}: {e}", path.display())))
}

/// A progress line on stderr (only when stderr is a terminal and not `--quiet`): a bar
/// with ETA when the total is known, else a spinner with the rate.
pub fn progress(total_bytes: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match total_bytes {
        Some(n) => {
            let bar = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg} ETA {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        }
        None => {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        }
    };
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Rows per second since `start` (0 for an instant run).
pub fn rate(rows: u64, start: Instant) -> u64 {
    let s = start.elapsed().as_secs_f64();
    if s > 0.0 {
        (rows as f64 / s) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn batch_and_concurrency_are_bounded() {
        assert!(super::check_batch_and_concurrency(1000, 8).is_ok());
        for (b, c) in [(0, 8), (1000, 0), (usize::MAX, 8), (1000, usize::MAX), (1_000_001, 1), (1, 1025)] {
            let e = super::check_batch_and_concurrency(b, c).unwrap_err();
            assert_eq!(e.code, crate::error::EXIT_USAGE);
        }
    }

    use super::*;
    use crate::keyfmt::unescape;

    #[test]
    fn cell_text_round_trips_through_unescape() {
        let cases: [&[u8]; 6] = [b"plain", b"0x12", b"tab\there", b"back\\slash", &[0, 255, 10], "通话".as_bytes()];
        for c in cases {
            assert_eq!(unescape(&cell_text(c)).unwrap(), c, "{c:?}");
        }
        assert_eq!(cell_text(b"0x12"), "0x12");
    }

    #[test]
    fn value_text_parses_back() {
        let f = basalt_rowkey::Field::new("b", basalt_rowkey::FieldType::Bytes(basalt_rowkey::Width::Variable));
        let v = Value::Bytes(vec![0, 1, 0xff]);
        match f.parse_value(&value_text(&v)).unwrap() {
            Value::Bytes(b) => assert_eq!(b, vec![0, 1, 0xff]),
            other => panic!("{other:?}"),
        }
    }
}
