//! `basalt import`: CSV, TSV or JSON lines into a table, batched and concurrent, with a
//! reject file and a checkpoint to resume from.
//!
//! A reader thread parses the input into batches and hands them over a bounded channel
//! (`--concurrency` batches); at most `--concurrency` batches are in flight, so memory
//! stays near `3 x concurrency x batch` rows whatever the input size. Batches are
//! acknowledged out of order; the checkpoint's offset only moves over the contiguous
//! prefix of acknowledged batches (a watermark), and every cell carries an explicit
//! timestamp (the timestamp column, or the import's own, fixed in the checkpoint), so a
//! batch sent again after a crash overwrites the very same versions.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use basalt::{Client, Put};
use clap::Args;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use tokio::sync::mpsc;

use crate::bulk::checkpoint::Checkpoint;
use crate::bulk::mapping::{parse_cell_spec, referenced_columns, Mapping, MappingSpec};
use crate::bulk::source::{self, Item, RecordReader};
use crate::bulk::{progress, rate, TextFormat};
use crate::conn::ConnOpts;
use crate::error::{CliError, CliResult};
use crate::keyfmt::thousands;
use crate::keys::load_schema;

/// `basalt import`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    basalt import telecom:calls calls.csv --schema calls.toml --cell d:dur=duration:i32 --cell d:type=kind\n  \
    zcat calls.csv.gz | basalt import telecom:calls - --schema calls.toml --cell d:dur=duration --cell d:type=kind\n  \
    basalt import telecom:calls calls.csv --schema calls.toml --cell d:dur=duration --cell d:type=kind --resume\n  \
    basalt import copy:calls export.jsonl --schema calls.toml --all-cells      # re-import an export")]
pub struct ImportArgs {
    /// Table to write into.
    table: String,
    /// Input file (`-` for stdin); gzip is detected.
    input: String,
    /// Input format (default: from the file name, else csv).
    #[arg(long, short, value_enum)]
    format: Option<TextFormat>,
    /// Schema file (TOML): columns named like its fields make the row key.
    #[arg(long, short)]
    schema: Option<PathBuf>,
    /// A key field read from a column of another name: FIELD=COLUMN (repeatable).
    #[arg(long = "key", value_name = "FIELD=COLUMN")]
    key: Vec<String>,
    /// Without --schema: the column holding the row key (escaped text).
    #[arg(long, default_value = "key", value_name = "COLUMN")]
    row_key: String,
    /// A cell: `FAMILY:QUALIFIER[=COLUMN[:TYPE]]`, TYPE one of text (default), bytes,
    /// escaped, hex, i16, i32, i64, f32, f64, bool (repeatable).
    #[arg(long = "cell", value_name = "FAMILY:QUALIFIER=COLUMN:TYPE")]
    cells: Vec<String>,
    /// Every other column named FAMILY:QUALIFIER is an escaped cell, and COLUMN@ts its
    /// timestamp (the form `basalt export` writes).
    #[arg(long)]
    all_cells: bool,
    /// The column holding each row's timestamp (ms since the epoch).
    #[arg(long, value_name = "COLUMN")]
    timestamp: Option<String>,
    /// Columns to ignore (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "COLUMN")]
    skip: Vec<String>,
    /// Column names of an input without a header line (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    columns: Vec<String>,
    /// With --columns: the input still has a header line; skip it.
    #[arg(long)]
    header: bool,
    /// The input is gzip even if it does not look like it.
    #[arg(long)]
    gzip: bool,
    /// Rows per write call.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Write calls in flight at once (and the connections used).
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Where bad rows go (line, reason, text); default INPUT.rejects.
    #[arg(long, value_name = "PATH")]
    reject: Option<PathBuf>,
    /// Stop at the first bad row instead of rejecting it.
    #[arg(long)]
    strict: bool,
    /// The checkpoint file; default INPUT.checkpoint (none for stdin).
    #[arg(long, value_name = "PATH")]
    checkpoint: Option<PathBuf>,
    /// Continue an interrupted import from its checkpoint.
    #[arg(long, conflicts_with = "restart")]
    resume: bool,
    /// Ignore an existing checkpoint and import everything again.
    #[arg(long)]
    restart: bool,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

/// One batch, from the reader to the writers.
struct Batch {
    seq: u64,
    puts: Vec<Put>,
    /// Input position after its last record.
    end: u64,
    rejects: Vec<String>,
}

/// What the committer keeps of a written batch.
struct Done {
    rows: u64,
    end: u64,
    rejects: Vec<String>,
}

fn format_of(args: &ImportArgs) -> TextFormat {
    if let Some(f) = args.format {
        return f;
    }
    let name = args.input.strip_suffix(".gz").unwrap_or(&args.input).to_ascii_lowercase();
    if name.ends_with(".tsv") || name.ends_with(".tab") {
        TextFormat::Tsv
    } else if name.ends_with(".json") || name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        TextFormat::Json
    } else {
        TextFormat::Csv
    }
}

fn spec_of(args: &ImportArgs, format: TextFormat) -> CliResult<MappingSpec> {
    let key_columns = args
        .key
        .iter()
        .map(|k| {
            k.split_once('=')
                .map(|(f, c)| (f.to_owned(), c.to_owned()))
                .ok_or_else(|| CliError::usage(format!("--key {k:?}: give FIELD=COLUMN")))
        })
        .collect::<CliResult<Vec<_>>>()?;
    if args.cells.is_empty() && !args.all_cells {
        return Err(CliError::usage("no cells to write: give --cell FAMILY:QUALIFIER=COLUMN or --all-cells"));
    }
    Ok(MappingSpec {
        schema: args.schema.as_deref().map(load_schema).transpose()?,
        key_columns,
        key_column: args.row_key.clone(),
        cells: args.cells.iter().map(|c| parse_cell_spec(c)).collect::<CliResult<_>>()?,
        all_cells: args.all_cells,
        ts_column: args.timestamp.clone(),
        skip: args.skip.clone(),
        strict_columns: format != TextFormat::Json,
    })
}

fn beside(input: &str, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{input}{suffix}"))
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn reject_line(line: u64, reason: &str, raw: &str) -> String {
    let flat = |s: &str| s.replace(['\n', '\r', '\t'], " ");
    format!("{line}\t{}\t{}\n", flat(reason), flat(raw))
}

fn raw_of(fields: &[Option<Vec<u8>>]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|f| f.as_deref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default())
        .collect();
    parts.join(",")
}

/// Parses the input into batches until its end, a closed channel, or (`strict`) the
/// first bad row.
fn read_batches(
    mut reader: RecordReader,
    mut mapping: Mapping,
    spec: &MappingSpec,
    tx: &mpsc::Sender<Batch>,
    batch_rows: usize,
    strict: bool,
) -> CliResult<()> {
    let mut seq = 0;
    let mut cur = Batch { seq, puts: Vec::with_capacity(batch_rows.min(4096)), end: 0, rejects: Vec::new() };
    let mut known = reader.header().len();
    let send = |b: Batch| tx.blocking_send(b).is_ok();
    loop {
        let item = reader.next_item()?;
        let (line, end, result) = match item {
            None => break,
            Some(Item::Bad { line, end, reason, raw }) => (line, end, Err((reason, raw))),
            Some(Item::Record { line, end, fields }) => {
                if reader.header().len() != known {
                    known = reader.header().len();
                    mapping.extend(reader.header(), spec)?;
                }
                (line, end, mapping.put(&fields).map_err(|r| (r, raw_of(&fields))))
            }
        };
        match result {
            Ok(put) => cur.puts.push(put),
            Err((reason, _)) if strict => {
                let kept = !cur.puts.is_empty() && send(cur);
                let _ = kept;
                return Err(CliError::usage(format!(
                    "line {line}: {reason} (--strict stops here; the rows before it are imported)"
                )));
            }
            Err((reason, raw)) => cur.rejects.push(reject_line(line, &reason, &raw)),
        }
        cur.end = end;
        if cur.puts.len() >= batch_rows {
            seq += 1;
            let next = Batch { seq, puts: Vec::with_capacity(batch_rows.min(4096)), end, rejects: Vec::new() };
            if !send(std::mem::replace(&mut cur, next)) {
                return Ok(());
            }
        }
    }
    if !cur.puts.is_empty() || !cur.rejects.is_empty() {
        send(cur);
    }
    Ok(())
}

/// The reject file, opened on the first reject, truncated to the checkpoint on resume.
struct Rejects {
    path: PathBuf,
    file: Option<BufWriter<File>>,
    len: u64,
}

impl Rejects {
    fn open(path: PathBuf, keep: Option<u64>) -> CliResult<Rejects> {
        let mut len = 0;
        if let Some(keep) = keep.filter(|_| path.exists()) {
            let f = OpenOptions::new().write(true).open(&path)?;
            // Only ever truncate: a checkpoint (a file a user can edit) saying more than
            // the reject file holds must not grow it.
            let keep = keep.min(f.metadata()?.len());
            f.set_len(keep)?;
            len = keep;
        } else if path.exists() {
            std::fs::remove_file(&path)?;
        }
        Ok(Rejects { path, file: None, len })
    }

    fn write(&mut self, line: &str) -> CliResult {
        if self.file.is_none() {
            let f =
                OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| {
                    CliError::failed(format!("cannot open the reject file {}: {e}", self.path.display()))
                })?;
            self.file = Some(BufWriter::new(f));
        }
        if let Some(f) = &mut self.file {
            f.write_all(line.as_bytes())?;
        }
        self.len += line.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> CliResult {
        if let Some(f) = &mut self.file {
            f.flush()?;
        }
        Ok(())
    }
}

fn load_checkpoint(job: &Job, path: Option<&Path>) -> CliResult<Option<Checkpoint>> {
    let Some(path) = path else {
        if job.resume {
            return Err(CliError::usage("--resume needs a file input (stdin cannot be read again) or --checkpoint"));
        }
        return Ok(None);
    };
    let found = Checkpoint::load(path)?;
    match found {
        Some(c) if job.restart => {
            let _ = c;
            Ok(None)
        }
        Some(c) if !job.resume => Err(CliError::usage(format!(
            "{} exists: an import of {} ({}). Pass --resume to continue it, or --restart to import everything again",
            path.display(),
            c.input,
            if c.complete { "complete" } else { "interrupted" }
        ))),
        Some(c) if c.table != job.table || c.input != job.input => Err(CliError::usage(format!(
            "checkpoint {} belongs to the import of {} into {}",
            path.display(),
            c.input,
            c.table
        ))),
        other => Ok(other),
    }
}

/// An import: from where, into which table, how.
#[derive(Debug, Clone)]
pub struct Job {
    /// The table.
    pub table: String,
    /// The input path, `-` for stdin.
    pub input: String,
    /// Its format.
    pub format: TextFormat,
    /// Columns to key fields and cells.
    pub spec: MappingSpec,
    /// Column names of an input without a header line.
    pub columns: Vec<String>,
    /// With `columns`: skip the input's header line anyway.
    pub header: bool,
    /// Force gzip.
    pub gzip: bool,
    /// Rows per write call.
    pub batch: usize,
    /// Write calls in flight.
    pub concurrency: usize,
    /// The reject file.
    pub reject: PathBuf,
    /// The checkpoint file (`None`: no checkpoint, no resume).
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint.
    pub resume: bool,
    /// Ignore an existing checkpoint.
    pub restart: bool,
    /// Stop at the first bad row.
    pub strict: bool,
    /// No progress line.
    pub quiet: bool,
}

/// What an import did.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Rows imported in all (earlier runs included).
    pub rows: u64,
    /// Rows rejected in all.
    pub rejected: u64,
    /// Rows an earlier run had imported.
    pub resumed_after: u64,
    /// Seconds this run took.
    pub secs: f64,
    /// The reject file.
    pub rejects: PathBuf,
    /// The checkpoint said the import was already complete.
    pub already_complete: bool,
}

impl Job {
    fn from_args(args: &ImportArgs) -> CliResult<Job> {
        let format = format_of(args);
        let spec = spec_of(args, format)?;
        crate::bulk::check_batch_and_concurrency(args.batch, args.concurrency)?;
        let stdin = args.input == "-";
        let reject = args.reject.clone().unwrap_or_else(|| {
            if stdin {
                PathBuf::from("basalt-import.rejects")
            } else {
                beside(&args.input, ".rejects")
            }
        });
        Ok(Job {
            table: args.table.clone(),
            input: args.input.clone(),
            format,
            spec,
            columns: args.columns.clone(),
            header: args.header,
            gzip: args.gzip,
            batch: args.batch,
            concurrency: args.concurrency,
            reject,
            checkpoint: args.checkpoint.clone().or_else(|| (!stdin).then(|| beside(&args.input, ".checkpoint"))),
            resume: args.resume,
            restart: args.restart,
            strict: args.strict,
            quiet: args.quiet,
        })
    }
}

/// Runs an import with `client` (whose pool should have `job.concurrency` connections).
pub async fn import(job: &Job, client: &Client) -> CliResult<Summary> {
    if !client.admin().table_exists(&job.table).await? {
        return Err(CliError::usage(format!(
            "table {} does not exist (create it with `basalt table create`)",
            job.table
        )));
    }
    let (format, spec) = (job.format, job.spec.clone());
    let ckpt_path = job.checkpoint.clone();
    let resumed = load_checkpoint(job, ckpt_path.as_deref())?;
    if let Some(c) = resumed.as_ref().filter(|c| c.complete) {
        let (rows, rejected, rejects) = (c.rows, c.rejected, job.reject.clone());
        return Ok(Summary { rows, rejected, resumed_after: rows, secs: 0.0, rejects, already_complete: true });
    }
    let mut state = resumed.clone().unwrap_or(Checkpoint {
        table: job.table.clone(),
        input: job.input.clone(),
        offset: 0,
        rows: 0,
        rejected: 0,
        reject_len: 0,
        timestamp: now_ms(),
        complete: false,
    });
    let mut rejects = Rejects::open(job.reject.clone(), resumed.as_ref().map(|c| c.reject_len))?;

    let input = source::open(&job.input, job.gzip)?;
    let (size, raw_read) = (input.size, std::sync::Arc::clone(&input.raw_read));
    let registered = if format == TextFormat::Json { referenced_columns(&spec) } else { job.columns.clone() };
    let mut reader = RecordReader::new(input.stream, format, &registered, job.header)?;
    let mapping = Mapping::new(&spec, reader.header(), state.timestamp)?;
    source::skip_to(&mut reader, state.offset)?;

    let table = client.table(&job.table)?.with_batch_rows(job.batch);
    let bar = progress(size, job.quiet);
    let start = Instant::now();
    let start_rows = state.rows;
    let (tx, mut rx) = mpsc::channel::<Batch>(job.concurrency);
    let (batch_rows, strict, concurrency) = (job.batch, job.strict, job.concurrency);
    let reader_thread = std::thread::spawn(move || read_batches(reader, mapping, &spec, &tx, batch_rows, strict));

    let mut sent_batches = 0u64;
    let outcome: CliResult<()> = async {
        let mut inflight = FuturesUnordered::new();
        let mut pending: BTreeMap<u64, Done> = BTreeMap::new();
        let mut next_seq = 0u64;
        let mut input_done = false;
        let mut failure: Option<CliError> = None;
        let mut last_save = Instant::now();
        loop {
            let can_take = !input_done
                && failure.is_none()
                && inflight.len() < concurrency
                && pending.len() < 4 * concurrency;
            if !can_take && inflight.is_empty() {
                break;
            }
            tokio::select! {
                batch = rx.recv(), if can_take => match batch {
                    None => input_done = true,
                    Some(b) => {
                        sent_batches += 1;
                        let table = table.clone();
                        inflight.push(async move {
                            let rows = b.puts.len() as u64;
                            let result = if b.puts.is_empty() { Ok(0) } else { table.put_many(b.puts).await };
                            (b.seq, Done { rows, end: b.end, rejects: b.rejects }, result)
                        });
                    }
                },
                Some((seq, done, result)) = inflight.next(), if !inflight.is_empty() => {
                    match result {
                        Ok(_) => {
                            pending.insert(seq, done);
                        }
                        Err(e) => {
                            failure.get_or_insert(CliError::from(e));
                        }
                    }
                    // The watermark: batches acknowledged without a gap below them.
                    while let Some(d) = pending.remove(&next_seq) {
                        for r in &d.rejects {
                            rejects.write(r)?;
                        }
                        // Saturating: the counts resume from the checkpoint file.
                        state.rows = state.rows.saturating_add(d.rows);
                        state.rejected = state.rejected.saturating_add(d.rejects.len() as u64);
                        state.offset = d.end;
                        next_seq += 1;
                    }
                    if last_save.elapsed().as_millis() >= 250 {
                        rejects.flush()?;
                        state.reject_len = rejects.len;
                        if let Some(p) = &ckpt_path {
                            state.save(p)?;
                        }
                        last_save = Instant::now();
                    }
                    bar.set_position(raw_read.load(Ordering::Relaxed));
                    let done = state.rows.saturating_sub(start_rows);
                    bar.set_message(format!("{} rows, {} rejected, {} rows/s", thousands(state.rows), state.rejected, thousands(rate(done, start))));
                }
            }
        }
        drop(rx);
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
    .await;
    let read_result = reader_thread.join().unwrap_or_else(|_| Err(CliError::failed("the input reader crashed")));
    bar.finish_and_clear();
    rejects.flush()?;
    state.reject_len = rejects.len;
    let failed = outcome.as_ref().err().or(read_result.as_ref().err()).cloned();
    state.complete = failed.is_none();
    // A run that sent nothing leaves no checkpoint (a usage error, an empty input).
    if let Some(p) = ckpt_path.as_ref().filter(|_| sent_batches > 0 || resumed.is_some()) {
        state.save(p)?;
    }
    let secs = start.elapsed().as_secs_f64();
    if let Some(mut e) = failed {
        if ckpt_path.is_some() && e.code != crate::error::EXIT_USAGE {
            e.message =
                format!("{}; {} rows are imported, `--resume` continues from there", e.message, thousands(state.rows));
        }
        return Err(e);
    }
    Ok(Summary {
        rows: state.rows,
        rejected: state.rejected,
        resumed_after: start_rows,
        secs,
        rejects: rejects.path.clone(),
        already_complete: false,
    })
}

/// Runs `basalt import`.
pub fn run(args: ImportArgs, conn: &ConnOpts) -> CliResult {
    let job = Job::from_args(&args)?;
    let s = crate::runtime()?.block_on(async {
        let client = conn.client(job.concurrency).await?;
        import(&job, &client).await
    })?;
    if s.already_complete {
        outln!(
            "nothing to do: the import of {} into {} is complete ({} rows)",
            job.input,
            job.table,
            thousands(s.rows)
        );
        return Ok(());
    }
    let done = s.rows.saturating_sub(s.resumed_after);
    let resumed_note = if s.resumed_after > 0 {
        format!(" (resumed after {} rows)", thousands(s.resumed_after))
    } else {
        String::new()
    };
    outln!(
        "imported {} rows into {} in {:.1}s ({} rows/s){resumed_note}; {} rejected{}",
        thousands(s.rows),
        job.table,
        s.secs,
        thousands(if s.secs > 0.0 { (done as f64 / s.secs) as u64 } else { 0 }),
        thousands(s.rejected),
        if s.rejected > 0 { format!(" (see {})", s.rejects.display()) } else { String::new() },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_claiming_a_longer_reject_file_does_not_grow_it() {
        let dir = std::env::temp_dir().join(format!("basalt-rejects-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rejects.txt");
        std::fs::write(&path, "line 1\nline 2\n").unwrap();
        let r = Rejects::open(path.clone(), Some(u64::MAX / 2)).unwrap();
        assert_eq!(r.len, 14);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 14);
        let r = Rejects::open(path.clone(), Some(7)).unwrap();
        assert_eq!(r.len, 7);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "line 1\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
