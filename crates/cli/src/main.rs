//! `basalt`: the command line for HBase, over its native RPC or its Thrift2 gateway: a
//! local HBase, the end-to-end demo of the call-record and bucketed-log key designs,
//! key-design tools, the shell's daily admin commands, and get/put/delete/incr/scan with
//! binary-safe keys, import, export, count and copy.
//!
//! Exit codes: 0 success, 1 runtime failure (or a failed demo check), 2 bad usage or
//! input (arguments, schema files, unknown tables), 3 HBase unreachable.

#[macro_use]
mod console;
mod admin;
mod admin_json;
mod analyze;
mod bulk;
mod cluster;
mod conn;
mod data;
mod demo;
mod demo_data;
mod error;
mod keyfmt;
mod keys;
mod local;
mod local_secure;
mod merge;
mod output;
mod stats;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::conn::ConnOpts;
use crate::error::{CliError, CliResult, EXIT_USAGE};

const AFTER_HELP: &str = "\
Examples:
  basalt demo                                  # start a local HBase, run the whole demo, stop it
  basalt local start                           # a local HBase in the background; prints host:port
  export BASALT_THRIFT_ADDR=127.0.0.1:9090
  basalt keys encode --schema calls.toml 13812345678 20210915123045
  basalt table create telecom:calls --schema calls.toml
  basalt scan telecom:calls --prefix 2_ --limit 10 --output json
  basalt --stats scan telecom:calls --prefix 2_   # then calls, pages and timings on stderr

Exit codes: 0 ok, 1 runtime failure, 2 bad usage or input, 3 HBase unreachable.";

/// The command line.
#[derive(Debug, Parser)]
#[command(name = "basalt", version, about = "HBase from the command line, over its native RPC or the Thrift2 gateway: local server, demo, key design, admin and data", after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    conn: ConnOpts,
    /// When the command ends, print the client's metrics to stderr: calls by operation
    /// and outcome, attempts, retries, scan pages, pool connections (count, p50, p99
    /// and max for distributions).
    #[arg(long, global = true)]
    stats: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Run a standalone HBase + Thrift2 in the background: start | stop | status.
    #[command(after_help = "Examples:\n  basalt local start\n  basalt local status\n  basalt local stop")]
    Local(local::LocalArgs),
    /// The end-to-end demo: salted call records and bucketed logs on a real HBase.
    Demo(demo::DemoArgs),
    /// Row-key design with a schema file: encode | decode | plan | splits | analyze.
    #[command(after_help = "Example:\n  basalt keys plan --schema calls.toml --fixed 13812345678 \
                            --from 20210901000000 --to 20211200000000")]
    Keys(keys::KeysArgs),
    /// Namespaces: create | list | describe | delete.
    #[command(after_help = "Example:\n  basalt ns create telecom")]
    Ns(admin::NsArgs),
    /// Tables: create | list | describe | disable | enable | truncate | alter | drop.
    #[command(
        after_help = "Example:\n  basalt table create telecom:calls --family d:versions=1 --algo numbered --regions 6"
    )]
    Table(admin::TableArgs),
    /// Flush a table's (or one region's) memstores to files (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway flush telecom:calls")]
    Flush(cluster::FlushArgs),
    /// Compact a table or one region, minor or --major (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway compact telecom:calls --major")]
    Compact(cluster::CompactArgs),
    /// Split the region holding a row at that row (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway split telecom:calls 3_")]
    Split(cluster::SplitArgs),
    /// Merge adjacent regions, each named by a row it holds (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway merge telecom:calls 0_ 1_")]
    Merge(cluster::MergeArgs),
    /// Move the region holding a row to another region server (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway move telecom:calls 3_ --to rs2.example.com:16020")]
    Move(cluster::MoveArgs),
    /// The balancer: on | off | run | status (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway balancer off")]
    Balancer(cluster::BalancerArgs),
    /// Snapshots: create | list | clone | restore | delete (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway snapshot create calls_0915 telecom:calls")]
    Snapshot(cluster::SnapshotArgs),
    /// The cluster: version, masters, live and dead servers, regions in transition (native RPC).
    #[command(after_help = "Example:\n  basalt --native gateway status")]
    Status(cluster::StatusArgs),
    /// A table's regions and the server of each.
    #[command(after_help = "Example:\n  basalt regions telecom:calls")]
    Regions(cluster::RegionsArgs),
    /// Read one row.
    Get(data::GetArgs),
    /// Write cells of one row.
    Put(data::PutArgs),
    /// Delete a row, or some of its columns.
    Delete(data::DeleteArgs),
    /// Add to a counter (an 8-byte big-endian cell) and print its new value: applied once.
    Incr(data::IncrArgs),
    /// Print a counter's value (the shell's get_counter).
    Counter(data::CounterArgs),
    /// Scan rows: by prefix or range, reversed, filtered, or merged over salt buckets.
    Scan(data::ScanArgs),
    /// Load CSV, TSV or JSON lines into a table (batched, resumable, bad rows rejected).
    Import(bulk::import::ImportArgs),
    /// Write a table or a salted query out as CSV, TSV or JSON lines (resumable).
    Export(bulk::export::ExportArgs),
    /// Count rows of a table or a salted query in parallel, keys only.
    Count(bulk::count::CountArgs),
    /// Copy a table or a salted query into another table, optionally re-keyed.
    Copy(bulk::copy::CopyArgs),
}

fn runtime() -> CliResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the async runtime: {e}")))
}

fn run(cli: Cli) -> CliResult {
    let conn = cli.conn;
    match cli.cmd {
        Cmd::Local(a) => local::run(a, conn.framed, conn.compact),
        Cmd::Keys(a) => keys::run(a),
        Cmd::Demo(a) => demo::run(a, &conn),
        Cmd::Import(a) => bulk::import::run(a, &conn),
        cmd => {
            let pool = if let Cmd::Copy(a) = &cmd { a.connections() } else { 4 };
            runtime()?.block_on(async move {
                let client = conn.client(pool).await?;
                match cmd {
                    Cmd::Ns(a) => admin::run_ns(a, &client).await,
                    Cmd::Table(a) => admin::run_table(a, &client).await,
                    Cmd::Flush(a) => cluster::flush(a, &client).await,
                    Cmd::Compact(a) => cluster::compact(a, &client).await,
                    Cmd::Split(a) => cluster::split(a, &client).await,
                    Cmd::Merge(a) => cluster::merge(a, &client).await,
                    Cmd::Move(a) => cluster::move_region(a, &client).await,
                    Cmd::Balancer(a) => cluster::balancer(a, &client).await,
                    Cmd::Snapshot(a) => cluster::snapshot(a, &client).await,
                    Cmd::Status(a) => cluster::status(a, &client).await,
                    Cmd::Regions(a) => cluster::regions(a, &client).await,
                    Cmd::Get(a) => data::get(a, &client).await,
                    Cmd::Put(a) => data::put(a, &client).await,
                    Cmd::Delete(a) => data::delete(a, &client).await,
                    Cmd::Incr(a) => data::incr(a, &client).await,
                    Cmd::Counter(a) => data::counter(a, &client).await,
                    Cmd::Scan(a) => data::scan(a, &client).await,
                    Cmd::Export(a) => bulk::export::run(a, &client).await,
                    Cmd::Count(a) => bulk::count::run(a, &client).await,
                    Cmd::Copy(a) => bulk::copy::run(a, &client).await,
                    Cmd::Local(_) | Cmd::Keys(_) | Cmd::Demo(_) | Cmd::Import(_) => Ok(()),
                }
            })
        }
    }
}

fn main() -> ExitCode {
    // Never a backtrace: a bug is reported on one line like any other error. A panic
    // in a background task (a scan worker) does not reach `main`, so the hook also
    // records it and the command then fails whatever it printed.
    std::panic::set_hook(Box::new(|info| {
        PANICKED.store(true, std::sync::atomic::Ordering::Relaxed);
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_owned());
        eprintln!("basalt: internal error: {what}");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("basalt: error: {}", usage_error_line(&e.render().to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let stats = match cli.stats.then(stats::Stats::install).transpose() {
        Ok(stats) => stats,
        Err(e) => {
            eprintln!("basalt: error: {e}");
            return ExitCode::from(error::EXIT_FAILURE);
        }
    };
    let code = match run(cli).and_then(|()| console::failure().map_or(Ok(()), |e| Err(CliError::failed(e)))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(),
    };
    if let Some(stats) = stats {
        eprint!("{}", stats.report());
    }
    if PANICKED.load(std::sync::atomic::Ordering::Relaxed) {
        return ExitCode::from(error::EXIT_FAILURE);
    }
    code
}

/// One line from clap's rendered usage error: its first paragraph, which holds the
/// message and, on the lines under it, the names of missing arguments. The usage line
/// is left out (it lists flags taken from the environment as if they were typed), and
/// so are the tips: `(see --help)` says where to look.
fn usage_error_line(rendered: &str) -> String {
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim().trim_start_matches("error:").trim())
        .collect();
    let message = if message.is_empty() { "bad usage".to_owned() } else { message.join(" ") };
    format!("{message} (see --help)")
}

/// Set by the panic hook: some thread panicked (a bug), so the command fails.
static PANICKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_argument_is_named() {
        let e = Cli::try_parse_from(["basalt", "get", "mytable"]).expect_err("the key is missing");
        let line = usage_error_line(&e.render().to_string());
        assert!(line.contains("<KEY>"), "{line}");
        assert!(line.ends_with("<KEY> (see --help)"), "{line}");
        assert!(!line.contains('\n'), "{line}");
    }

    #[test]
    fn a_bad_value_keeps_its_reason() {
        let e = Cli::try_parse_from(["basalt", "scan", "t", "--limit", "many"]).expect_err("not a number");
        let line = usage_error_line(&e.render().to_string());
        assert!(line.starts_with("invalid value 'many' for '--limit <LIMIT>'"), "{line}");
    }
}
