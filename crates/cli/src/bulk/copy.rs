//! `basalt copy`: a table or a salted query into another table, every version with its
//! timestamp, optionally re-keyed into another key design (another salt, more buckets).
//! The source is only read (scans), so it keeps serving; a copy run again rewrites the
//! same versions (same keys, columns and timestamps), so an interrupted copy is simply
//! run again.

use std::path::PathBuf;
use std::time::Instant;

use basalt::{Client, Put, Row, Scan};
use basalt_rowkey::Schema;
use clap::Args;
use futures::stream::FuturesUnordered;
use futures::StreamExt;

use crate::bulk::{progress, rate};
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, thousands};
use crate::keys::{build_query, load_schema, QueryArgs};

/// `basalt copy`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt copy telecom:calls backup:calls\n  \
    basalt copy telecom:calls telecom:calls12 --schema calls.toml --to-schema calls-12-buckets.toml\n  \
    basalt copy telecom:calls sept:calls --schema calls.toml --fixed 13812345678 --from 20210901000000 --to 20211001000000")]
pub struct CopyArgs {
    /// Table to read.
    source: String,
    /// Table to write (it must exist: `basalt table create`).
    target: String,
    /// Schema of the source keys: copy a query, and re-key with --to-schema.
    #[arg(long, short)]
    schema: Option<PathBuf>,
    #[command(flatten)]
    query: QueryArgs,
    /// Re-key every row into this design: the source key is decoded with --schema and
    /// encoded with this one (the field values must fit it).
    #[arg(long, requires = "schema", value_name = "SCHEMA")]
    to_schema: Option<PathBuf>,
    /// Rows per write call.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Write calls in flight at once.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Rows per scan round trip.
    #[arg(long, default_value_t = 1000)]
    caching: u32,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

impl CopyArgs {
    /// Connections the copy needs: its writes plus the source's bucket scanners.
    pub fn connections(&self) -> usize {
        // Saturating: called before `run` checks the flag.
        self.concurrency.saturating_add(8)
    }
}

/// The put that copies `row` (every cell at its timestamp), re-keyed when asked.
fn copy_put(row: &Row, rekey: Option<(&Schema, &Schema)>) -> CliResult<Put> {
    let key = match rekey {
        None => row.key_bytes(),
        Some((from, to)) => {
            let values = from
                .decode(row.key())
                .map_err(|e| CliError::failed(format!("row {} does not fit --schema: {e}", escape(row.key()))))?
                .values;
            to.encode(&values)
                .map_err(|e| CliError::failed(format!("row {} does not fit --to-schema: {e}", escape(row.key()))))?
        }
    };
    let mut put = Put::new(key);
    for c in row.cells() {
        // Slices of the scanned page: no copy.
        put = put.cell_at(c.family_bytes(), c.qualifier_bytes(), c.value_bytes(), c.timestamp());
    }
    Ok(put)
}

/// Runs `basalt copy`.
pub async fn run(args: CopyArgs, client: &Client) -> CliResult {
    crate::bulk::check_batch_and_concurrency(args.batch, args.concurrency)?;
    if args.source == args.target && args.to_schema.is_none() {
        return Err(CliError::usage("the source and the target are the same table"));
    }
    let schema = args.schema.as_deref().map(load_schema).transpose()?;
    let to_schema = args.to_schema.as_deref().map(load_schema).transpose()?;
    if !client.admin().table_exists(&args.target).await? {
        return Err(CliError::usage(format!(
            "table {} does not exist (create it with `basalt table create`)",
            args.target
        )));
    }
    let source = client.table(&args.source)?;
    let target = client.table(&args.target)?.with_batch_rows(args.batch);
    // Every version, as the source holds them.
    let template = Scan::new().caching(args.caching.max(1)).max_versions(u32::MAX);
    let mut rows: std::pin::Pin<Box<dyn futures::Stream<Item = CliResult<Row>> + Send>> = match &schema {
        Some(s) => {
            let query = build_query(s, &args.query, false)?;
            let stream = source.salted(s.clone()).scan(query).template(template).ordered(false).stream().await?;
            Box::pin(stream.map(|r| r.map(|r| r.row).map_err(CliError::from)))
        }
        None => {
            if !args.query.fixed.is_empty() || args.query.from.is_some() || args.query.to.is_some() {
                return Err(CliError::usage("--fixed/--from/--to need --schema"));
            }
            Box::pin(source.scan(template)?.map(|r| r.map_err(CliError::from)))
        }
    };
    let rekey = schema.as_ref().zip(to_schema.as_ref());
    let bar = progress(None, args.quiet);
    let start = Instant::now();
    let mut inflight = FuturesUnordered::new();
    let mut written = 0u64;
    let mut batch: Vec<Put> = Vec::with_capacity(args.batch.min(4096));
    let mut source_done = false;
    loop {
        // Fill a batch while fewer than `concurrency` writes are in flight.
        if !source_done && inflight.len() < args.concurrency {
            match rows.next().await {
                Some(row) => {
                    batch.push(copy_put(&row?, rekey)?);
                }
                None => source_done = true,
            }
            if batch.len() >= args.batch || (source_done && !batch.is_empty()) {
                let (t, puts) = (target.clone(), std::mem::take(&mut batch));
                // Spawned: the writes go on while the next batch is read.
                inflight.push(tokio::spawn(async move { t.put_many(puts).await }));
            }
            continue;
        }
        match inflight.next().await {
            Some(result) => {
                let result = result.map_err(|e| CliError::failed(format!("a write task failed: {e}")))?;
                written += result? as u64;
                bar.set_message(format!("{} rows, {} rows/s", thousands(written), thousands(rate(written, start))));
            }
            None => break,
        }
    }
    bar.finish_and_clear();
    outln!(
        "copied {} rows from {} to {} in {:.1}s ({} rows/s){}",
        thousands(written),
        args.source,
        args.target,
        start.elapsed().as_secs_f64(),
        thousands(rate(written, start)),
        if rekey.is_some() { ", re-keyed" } else { "" }
    );
    Ok(())
}
