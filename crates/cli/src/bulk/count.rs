//! `basalt count`: rows of a table or a salted query, counted in parallel over the
//! query's ranges cut at region boundaries, with a key-only filter (the first cell of
//! each row, its value stripped: nothing but keys crosses the wire).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use basalt::{Bytes, Client, Filter, Scan, Table};
use basalt_rowkey::Schema;
use clap::Args;
use futures::StreamExt;

use crate::bulk::{progress, rate};
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, thousands};
use crate::keys::{build_query, load_schema, QueryArgs};

/// `basalt count`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt count telecom:calls\n  \
    basalt count telecom:calls --schema calls.toml --per-bucket\n  \
    basalt count telecom:calls --schema calls.toml --fixed 13812345678 --from 20210901000000 --to 20211200000000")]
pub struct CountArgs {
    /// Table to count.
    table: String,
    /// Schema file (TOML): count a query, and per salt bucket.
    #[arg(long, short)]
    schema: Option<PathBuf>,
    #[command(flatten)]
    query: QueryArgs,
    /// Print rows per salt bucket and the skew (largest / mean).
    #[arg(long, requires = "schema")]
    per_bucket: bool,
    /// Ranges scanned at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Rows per round trip.
    #[arg(long, default_value_t = 5000)]
    caching: u32,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

/// One piece of work: a key range inside one bucket and one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The salt bucket, if any.
    pub bucket: Option<u32>,
    /// Inclusive start.
    pub start: Bytes,
    /// Exclusive stop (empty: unbounded).
    pub stop: Bytes,
}

async fn count_piece(table: Table, piece: Piece, caching: u32, progress: Arc<AtomicU64>) -> CliResult<u64> {
    let mut scan = Scan::new()
        .filter(Filter::first_key_only().and(Filter::key_only()))
        .caching(caching)
        .cache_blocks(false)
        .start(piece.start.clone());
    if !piece.stop.is_empty() {
        scan = scan.stop(piece.stop.clone());
    }
    let mut stream = table.scan(scan)?;
    let mut n = 0u64;
    while let Some(page) = stream.next_page().await {
        let page = page?;
        if page.is_empty() {
            break;
        }
        // A row can arrive in parts only with a batch size, which this scan has not.
        n += page.len() as u64;
        progress.fetch_add(page.len() as u64, Ordering::Relaxed);
    }
    Ok(n)
}

/// Counts rows of `table` (all of it, or the ranges of `query` over `schema`); gives
/// the total and the rows per bucket (index = bucket).
pub async fn count_rows(
    table: &Table,
    planned: Vec<(Option<u32>, Bytes, Bytes)>,
    concurrency: usize,
    caching: u32,
    seen: Arc<AtomicU64>,
) -> CliResult<Vec<(Option<u32>, u64)>> {
    let regions = table.region_locations().await?;
    // Each planned range cut at the regions by the client's one function for it.
    let pieces: Vec<Piece> = planned
        .iter()
        .flat_map(|(bucket, start, stop)| {
            basalt::cut_at_regions(start, stop, &regions).into_iter().map(|(start, stop)| Piece {
                bucket: *bucket,
                start,
                stop,
            })
        })
        .collect();
    let counts = futures::stream::iter(pieces.into_iter().map(|p| {
        let bucket = p.bucket;
        let fut = count_piece(table.clone(), p, caching, Arc::clone(&seen));
        async move { fut.await.map(|n| (bucket, n)) }
    }))
    .buffer_unordered(concurrency.max(1))
    .collect::<Vec<_>>()
    .await;
    counts.into_iter().collect()
}

/// Rows per region of the whole table, every region counted with key-only scans
/// (`concurrency` at once): the split keys and one count per region, in key order.
pub async fn count_per_region(table: &Table, concurrency: usize) -> CliResult<(Vec<Bytes>, Vec<u64>)> {
    let mut regions = table.region_locations().await?;
    regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
    let splits = regions.iter().skip(1).map(|r| r.start_key.clone()).collect();
    let seen = Arc::new(AtomicU64::new(0));
    let counts = futures::stream::iter(regions.iter().map(|r| {
        let piece = Piece { bucket: None, start: r.start_key.clone(), stop: r.end_key.clone() };
        count_piece(table.clone(), piece, 5000, Arc::clone(&seen))
    }))
    .buffered(concurrency.max(1))
    .collect::<Vec<_>>()
    .await;
    Ok((splits, counts.into_iter().collect::<CliResult<Vec<_>>>()?))
}

fn planned_ranges(args: &CountArgs, schema: Option<&Schema>) -> CliResult<Vec<(Option<u32>, Bytes, Bytes)>> {
    match schema {
        Some(s) => {
            let plan = s.plan(&build_query(s, &args.query, false)?)?;
            Ok(plan.ranges.into_iter().map(|r| (r.bucket, r.start, r.stop)).collect())
        }
        None => {
            if !args.query.fixed.is_empty() || args.query.from.is_some() || args.query.to.is_some() {
                return Err(CliError::usage("--fixed/--from/--to need --schema"));
            }
            Ok(vec![(None, Bytes::new(), Bytes::new())])
        }
    }
}

/// Runs `basalt count`.
pub async fn run(args: CountArgs, client: &Client) -> CliResult {
    let schema = args.schema.as_deref().map(load_schema).transpose()?;
    let planned = planned_ranges(&args, schema.as_ref())?;
    let table = client.table(&args.table)?;
    let seen = Arc::new(AtomicU64::new(0));
    let bar = progress(None, args.quiet);
    let ticker = {
        let (bar, seen) = (bar.clone(), Arc::clone(&seen));
        let start = Instant::now();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                let n = seen.load(Ordering::Relaxed);
                bar.set_message(format!("{} rows, {} rows/s", thousands(n), thousands(rate(n, start))));
            }
        })
    };
    let start = Instant::now();
    let result = count_rows(&table, planned, args.concurrency, args.caching.max(1), Arc::clone(&seen)).await;
    ticker.abort();
    bar.finish_and_clear();
    let counts = result?;
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    if args.per_bucket {
        if let Some(s) = &schema {
            print_buckets(s, &counts, total);
        }
    }
    outln!("{total}");
    eprintln!(
        "counted {} rows of {} in {:.1}s ({} rows/s)",
        thousands(total),
        args.table,
        start.elapsed().as_secs_f64(),
        thousands(rate(total, start))
    );
    Ok(())
}

fn print_buckets(schema: &Schema, counts: &[(Option<u32>, u64)], total: u64) {
    let Some(n) = schema.bucket_count() else {
        outln!("(the schema has no salt: one bucket)");
        return;
    };
    let mut per = vec![0u64; n as usize];
    for (b, c) in counts {
        if let Some(slot) = b.and_then(|b| per.get_mut(b as usize)) {
            *slot += c;
        }
    }
    let max = per.iter().copied().max().unwrap_or(0);
    let involved = counts.iter().filter_map(|(b, _)| *b).collect::<std::collections::BTreeSet<_>>();
    outln!("{:<8} {:<12} {:>12} {:>7}", "BUCKET", "PREFIX", "ROWS", "SHARE");
    for (b, c) in per.iter().enumerate() {
        if !involved.contains(&(b as u32)) {
            continue;
        }
        let share = if total > 0 { 100.0 * *c as f64 / total as f64 } else { 0.0 };
        let bar_len = (30 * c).checked_div(max).unwrap_or(0) as usize;
        outln!(
            "{b:<8} {:<12} {:>12} {share:>6.1}% {}",
            escape(&schema.salt_prefix(b as u32)),
            thousands(*c),
            "#".repeat(bar_len)
        );
    }
    let k = involved.len().max(1) as f64;
    let mean = total as f64 / k;
    let skew = if mean > 0.0 { max as f64 / mean } else { 0.0 };
    outln!("skew {skew:.2} (largest bucket / mean over {} buckets)", involved.len());
}
