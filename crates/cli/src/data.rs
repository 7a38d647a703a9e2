//! `basalt get | put | delete | incr | counter | scan` (their output is in [`crate::output`]).

use std::path::PathBuf;

use basalt::{Client, Delete, Filter, Get, Put, Scan};
use clap::Args;
use futures::StreamExt;

use crate::error::{CliError, CliResult};
use crate::keyfmt::{parse_bytes, parse_column, show};
use crate::keys::{build_query, load_schema, QueryArgs};
use crate::merge::MergedScan;
use crate::output::{RowOpts, RowWriter};

/// `basalt get`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt get telecom:calls 2_13812345678_20210915123045\n  \
                        basalt get t 0x00ff01 --columns d:dur,d:type --output json")]
pub struct GetArgs {
    /// Table name.
    table: String,
    /// Row key (escaped or 0x hex).
    key: String,
    /// Only these columns (family or family:qualifier, comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    columns: Vec<String>,
    /// Up to N versions per column.
    #[arg(long)]
    versions: Option<u32>,
    #[command(flatten)]
    opts: RowOpts,
}

/// `basalt put`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  basalt put telecom:calls 2_13812345678_20210915123045 d:dur=00061 d:type=out")]
pub struct PutArgs {
    /// Table name.
    table: String,
    /// Row key (escaped or 0x hex).
    key: String,
    /// Cells family:qualifier=value (value escaped or 0x hex).
    #[arg(required = true, value_name = "FAMILY:QUALIFIER=VALUE")]
    cells: Vec<String>,
    /// Keys and values are hex.
    #[arg(long)]
    hex: bool,
}

/// `basalt incr`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt incr t row1 d:hits\n  basalt incr t row1 d:hits -5")]
pub struct IncrArgs {
    /// Table name.
    table: String,
    /// Row key (escaped or 0x hex).
    key: String,
    /// The counter's column, family:qualifier.
    column: String,
    /// How much to add (negative subtracts).
    #[arg(default_value_t = 1, allow_negative_numbers = true)]
    by: i64,
    /// Key and column are hex.
    #[arg(long)]
    hex: bool,
}

/// `basalt counter`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  basalt counter t row1 d:hits")]
pub struct CounterArgs {
    /// Table name.
    table: String,
    /// Row key (escaped or 0x hex).
    key: String,
    /// The counter's column, family:qualifier.
    column: String,
    /// Key and column are hex.
    #[arg(long)]
    hex: bool,
}

/// `basalt delete`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt delete t row1\n  basalt delete t row1 --columns d:dur")]
pub struct DeleteArgs {
    /// Table name.
    table: String,
    /// Row key (escaped or 0x hex).
    key: String,
    /// Only these columns (every version) or families; default the whole row.
    #[arg(long, value_delimiter = ',')]
    columns: Vec<String>,
    /// The key is hex.
    #[arg(long)]
    hex: bool,
}

/// `basalt scan`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt scan t --prefix host1 --limit 10\n  \
                        basalt scan t --start a --stop m --reverse --output csv\n  \
                        basalt scan t --filter \"SingleColumnValueFilter('d','type',=,'binary:out')\"\n  \
                        basalt scan telecom:calls --salted calls.toml --fixed 13812345678 \
                        --from 20210901000000 --to 20211200000000")]
pub struct ScanArgs {
    /// Table name.
    table: String,
    /// Rows whose key starts with this prefix.
    #[arg(long, conflicts_with_all = ["start", "stop"])]
    prefix: Option<String>,
    /// First key (inclusive).
    #[arg(long)]
    start: Option<String>,
    /// Last key (exclusive).
    #[arg(long)]
    stop: Option<String>,
    /// From the largest key down.
    #[arg(long)]
    reverse: bool,
    /// At most N rows.
    #[arg(long)]
    limit: Option<u64>,
    /// Only these columns (family or family:qualifier, comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    columns: Vec<String>,
    /// A server-side filter in HBase's filter language, checked here before sending
    /// (e.g. "PrefixFilter('a') AND SingleColumnValueFilter('d','type',=,'binary:out')").
    #[arg(long)]
    filter: Option<String>,
    /// Merged salted scan: plan the ranges with this schema file (with --fixed/--from/--to).
    #[arg(long, value_name = "SCHEMA", conflicts_with_all = ["prefix", "start", "stop"])]
    salted: Option<PathBuf>,
    #[command(flatten)]
    query: QueryArgs,
    /// Rows per round trip.
    #[arg(long, default_value_t = 500)]
    caching: u32,
    #[command(flatten)]
    opts: RowOpts,
}

fn columns_of<T>(
    cols: &[String],
    mut target: T,
    col: impl Fn(T, Vec<u8>, Vec<u8>) -> T,
    fam: impl Fn(T, Vec<u8>) -> T,
) -> CliResult<T> {
    for c in cols.iter().filter(|c| !c.is_empty()) {
        target = match parse_column(c)? {
            (f, Some(q)) => col(target, f, q),
            (f, None) => fam(target, f),
        };
    }
    Ok(target)
}

fn io_err(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        // The reader went away (`| head`): not an error.
        return CliError { code: 0, message: String::new() };
    }
    CliError::failed(format!("writing output: {e}"))
}

/// Runs `basalt get`.
pub async fn get(args: GetArgs, client: &Client) -> CliResult {
    let table = client.table(&args.table)?;
    let key = parse_bytes(&args.key, args.opts.hex)?;
    let mut get = columns_of(&args.columns, Get::new(key.clone()), |g, f, q| g.column(f, q), |g, f| g.family(f))?;
    if let Some(v) = args.versions {
        get = get.max_versions(v.max(1));
    }
    let row = table.get(get).await?;
    if row.is_empty() {
        return Err(CliError::failed(format!("row {} not found in {}", show(&key, args.opts.hex), args.table)));
    }
    let mut w = RowWriter::new(args.opts);
    w.row(&row).and_then(|_| w.finish()).map_err(io_err)
}

/// Runs `basalt put`.
pub async fn put(args: PutArgs, client: &Client) -> CliResult {
    let table = client.table(&args.table)?;
    let key = parse_bytes(&args.key, args.hex)?;
    let mut put = Put::new(key.clone());
    for cell in &args.cells {
        let (col, value) = cell
            .split_once('=')
            .ok_or_else(|| CliError::usage(format!("cell {cell:?} is not family:qualifier=value")))?;
        let (f, q) = parse_column(col)?;
        let q = q.ok_or_else(|| CliError::usage(format!("cell {cell:?} needs family:qualifier")))?;
        put = put.cell(f, q, parse_bytes(value, args.hex)?);
    }
    table.put(put).await?;
    outln!("put {} cell(s) into {} {}", args.cells.len(), args.table, show(&key, args.hex));
    Ok(())
}

/// Runs `basalt delete`.
pub async fn delete(args: DeleteArgs, client: &Client) -> CliResult {
    let table = client.table(&args.table)?;
    let key = parse_bytes(&args.key, args.hex)?;
    let del = columns_of(&args.columns, Delete::row(key.clone()), |d, f, q| d.all_versions(f, q), |d, f| d.family(f))?;
    table.delete(del).await?;
    outln!("deleted from {} {}", args.table, show(&key, args.hex));
    Ok(())
}

/// The counter column of `incr` and `counter`: family:qualifier.
fn counter_column(column: &str) -> CliResult<(basalt::Bytes, basalt::Bytes)> {
    let (f, q) = parse_column(column)?;
    let q = q.ok_or_else(|| CliError::usage(format!("counter column {column:?} needs family:qualifier")))?;
    Ok((basalt::Bytes::copy_from_slice(&f), basalt::Bytes::copy_from_slice(&q)))
}

/// Runs `basalt incr`: one increment, carrying one nonce over every retry.
pub async fn incr(args: IncrArgs, client: &Client) -> CliResult {
    let table = client.table(&args.table)?;
    let key = parse_bytes(&args.key, args.hex)?;
    let (family, qualifier) = counter_column(&args.column)?;
    let value = table.increment_counter(key, family, qualifier, args.by).await?;
    outln!("{value}");
    Ok(())
}

/// Runs `basalt counter`: the value of an 8-byte counter cell; a cell of another
/// length is not a counter and is refused, naming its length.
pub async fn counter(args: CounterArgs, client: &Client) -> CliResult {
    let table = client.table(&args.table)?;
    let key = parse_bytes(&args.key, args.hex)?;
    let (family, qualifier) = counter_column(&args.column)?;
    let row = table.get(Get::new(key.clone()).column(family.clone(), qualifier.clone())).await?;
    let Some(value) = row.value(&family, &qualifier) else {
        return Err(CliError::failed(format!(
            "no counter {} in row {} of {}",
            args.column,
            show(&key, args.hex),
            args.table
        )));
    };
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        CliError::failed(format!("{} holds {} byte(s), not an 8-byte counter", args.column, value.len()))
    })?;
    outln!("{}", i64::from_be_bytes(bytes));
    Ok(())
}

/// Parses a `--filter` string on the client, so that a malformed one is bad input
/// (exit 2) named with its position, not a failure inside the gateway's handler.
fn parse_filter(text: &str) -> CliResult<Filter> {
    Filter::parse(text).map_err(|e| CliError::usage(format!("--filter {text:?}: {e}")))
}

/// Runs `basalt scan`.
pub async fn scan(args: ScanArgs, client: &Client) -> CliResult {
    let table = client.table(&args.table)?;
    let h = args.opts.hex;
    let mut scan = columns_of(&args.columns, Scan::new(), |s, f, q| s.column(f, q), |s, f| s.family(f))?;
    scan = scan.caching(args.caching.max(1));
    if let Some(f) = &args.filter {
        scan = scan.filter(parse_filter(f)?);
    }
    let mut w = RowWriter::new(args.opts.clone());
    let mut n = 0u64;
    if let Some(path) = &args.salted {
        let schema = load_schema(path)?;
        let query = build_query(&schema, &args.query, args.reverse)?;
        let mut merged = MergedScan::open(&table, &schema, query, &scan, args.limit, None).await?;
        while let Some(row) = merged.next().await? {
            w.row(&row).map_err(io_err)?;
            n += 1;
        }
    } else {
        if !args.query.fixed.is_empty() || args.query.from.is_some() || args.query.to.is_some() {
            return Err(CliError::usage("--fixed/--from/--to need --salted SCHEMA"));
        }
        if let Some(p) = &args.prefix {
            scan = scan.prefix(parse_bytes(p, h)?);
        }
        if let Some(s) = &args.start {
            scan = scan.start(parse_bytes(s, h)?);
        }
        if let Some(s) = &args.stop {
            scan = scan.stop(parse_bytes(s, h)?);
        }
        if let Some(l) = args.limit {
            scan = scan.limit(l);
        }
        let mut stream = table.scan(scan.reversed(args.reverse))?;
        while let Some(row) = stream.next().await {
            w.row(&row?).map_err(io_err)?;
            n += 1;
        }
    }
    w.finish().map_err(io_err)?;
    eprintln!("{n} row(s)");
    Ok(())
}
