//! The HBase shell's daily cluster commands: `flush`, `compact`, `split`, `merge`,
//! `move`, `balancer`, `snapshot`, `status` and `regions`. Except `regions`, they need
//! HBase's native RPC (`--native`): the Thrift2 gateway has no such calls, and says so.
//! Commands that destroy data ask first (`--yes` skips the question; without a
//! terminal it is required).

use std::io::{BufRead, IsTerminal, Write};

use basalt::Client;
use bytes::Bytes;
use clap::{Args, Subcommand};

use crate::admin_json::{self, AdminFormat};
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, parse_bytes};

/// `basalt flush TABLE`.
#[derive(Debug, Args)]
pub struct FlushArgs {
    /// Table name.
    table: String,
    /// Only the region holding this row (escaped or 0x hex).
    #[arg(long, value_name = "KEY")]
    row: Option<String>,
}

/// `basalt compact TABLE`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Table name.
    table: String,
    /// Only the region holding this row (escaped or 0x hex).
    #[arg(long, value_name = "KEY")]
    row: Option<String>,
    /// A major compaction: each family rewritten into one file, deleted and expired
    /// cells dropped.
    #[arg(long)]
    major: bool,
}

/// `basalt split TABLE KEY`.
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Table name.
    table: String,
    /// The row to split at (escaped or 0x hex): the region holding it splits there.
    key: String,
}

/// `basalt merge TABLE KEY KEY...`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Table name.
    table: String,
    /// A row of each region to merge (adjacent regions; at least two).
    #[arg(required = true, num_args = 2.., value_name = "KEY")]
    keys: Vec<String>,
}

/// `basalt move TABLE KEY`.
#[derive(Debug, Args)]
pub struct MoveArgs {
    /// Table name.
    table: String,
    /// A row of the region to move (escaped or 0x hex).
    key: String,
    /// The live region server to move it to (default: the master picks).
    #[arg(long, value_name = "HOST:PORT")]
    to: Option<String>,
}

/// `basalt balancer ...`.
#[derive(Debug, Args)]
pub struct BalancerArgs {
    #[command(subcommand)]
    cmd: BalancerCmd,
}

#[derive(Debug, Subcommand)]
enum BalancerCmd {
    /// Turn the balancer on.
    #[command(after_help = "Example:\n  basalt --native gateway balancer on")]
    On,
    /// Turn the balancer off.
    #[command(after_help = "Example:\n  basalt --native gateway balancer off")]
    Off,
    /// Run the balancer once.
    #[command(after_help = "Example:\n  basalt --native gateway balancer run")]
    Run,
    /// Whether the balancer is on.
    #[command(after_help = "Example:\n  basalt --native gateway balancer status")]
    Status,
}

/// `basalt snapshot ...`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(subcommand)]
    cmd: SnapshotCmd,
}

#[derive(Debug, Subcommand)]
enum SnapshotCmd {
    /// Take a snapshot of a table.
    #[command(after_help = "Example:\n  basalt --native gateway snapshot create calls_0915 telecom:calls")]
    Create {
        /// Snapshot name.
        name: String,
        /// Table name.
        table: String,
    },
    /// List the snapshots.
    #[command(after_help = "Examples:\n  basalt --native gateway snapshot list\n  \
                            basalt snapshot list -o json   # {\"snapshots\": [{\"name\", \"table\", \"created_ms\", \
                            \"owner\", \"ttl_seconds\"}]}")]
    List {
        /// Output format: text, or one JSON document.
        #[arg(long, short, value_enum, default_value = "text")]
        output: AdminFormat,
    },
    /// Create a new table from a snapshot.
    #[command(after_help = "Example:\n  basalt --native gateway snapshot clone calls_0915 telecom:calls_copy")]
    Clone {
        /// Snapshot name.
        name: String,
        /// The new table.
        table: String,
    },
    /// Put the snapshot's table back as it was in the snapshot (later writes are lost).
    #[command(after_help = "Example:\n  basalt --native gateway snapshot restore calls_0915 --yes")]
    Restore {
        /// Snapshot name.
        name: String,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
    /// Delete a snapshot.
    #[command(after_help = "Example:\n  basalt --native gateway snapshot delete calls_0915 --yes")]
    Delete {
        /// Snapshot name.
        name: String,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
}

/// `basalt regions TABLE`.
#[derive(Debug, Args)]
pub struct RegionsArgs {
    /// Table name.
    table: String,
    /// Output format: text, or one JSON document ({"table", "regions": [{"start", "end", "server", "region_id"}]}).
    #[arg(long, short, value_enum, default_value = "text")]
    output: AdminFormat,
}

/// `basalt status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Output format: text, or one JSON document ({"version", "cluster_id", "master", "backup_masters",
    /// "live_servers": [..], "dead_servers", "regions_in_transition", "balancer_on"}).
    #[arg(long, short, value_enum, default_value = "text")]
    output: AdminFormat,
}

/// Asks before `what` destroys data: `yes` skips the question; without a terminal,
/// `--yes` is required.
pub fn confirm(what: &str, yes: bool) -> CliResult {
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(CliError::usage(format!("{what}: this destroys data; pass --yes to confirm")));
    }
    eprint!("{what}: this destroys data. Go on? [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    match answer.trim() {
        "y" | "Y" | "yes" => Ok(()),
        _ => Err(CliError::failed(format!("{what}: not confirmed"))),
    }
}

fn key(text: &str) -> CliResult<Bytes> {
    let key = parse_bytes(text, false)?;
    if key.is_empty() {
        return Err(CliError::usage("a row key must not be empty"));
    }
    Ok(Bytes::from(key))
}

/// Runs `basalt flush`.
pub async fn flush(args: FlushArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    match &args.row {
        Some(row) => admin.flush_region(&args.table, &key(row)?).await?,
        None => admin.flush(&args.table).await?,
    }
    outln!("flushed {}", args.table);
    Ok(())
}

/// Runs `basalt compact`.
pub async fn compact(args: CompactArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    match &args.row {
        Some(row) => admin.compact_region(&args.table, &key(row)?, args.major).await?,
        None => admin.compact(&args.table, args.major).await?,
    }
    let kind = if args.major { "major compaction" } else { "compaction" };
    outln!("{kind} of {} requested (the region servers run it in the background)", args.table);
    Ok(())
}

/// Runs `basalt split`.
pub async fn split(args: SplitArgs, client: &Client) -> CliResult {
    let at = key(&args.key)?;
    client.admin().split(&args.table, &at).await?;
    outln!("split {} at {}", args.table, escape(&at));
    Ok(())
}

/// Runs `basalt merge`.
pub async fn merge(args: MergeArgs, client: &Client) -> CliResult {
    let rows = args.keys.iter().map(|k| key(k)).collect::<CliResult<Vec<_>>>()?;
    client.admin().merge_regions(&args.table, &rows).await?;
    outln!("merged {} regions of {}", rows.len(), args.table);
    Ok(())
}

/// Runs `basalt move`.
pub async fn move_region(args: MoveArgs, client: &Client) -> CliResult {
    let row = key(&args.key)?;
    client.admin().move_region(&args.table, &row, args.to.as_deref()).await?;
    outln!(
        "moved the region of {} holding {} to {}",
        args.table,
        escape(&row),
        args.to.as_deref().unwrap_or("a server the master picked")
    );
    Ok(())
}

/// Runs `basalt balancer ...`.
pub async fn balancer(args: BalancerArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    match args.cmd {
        BalancerCmd::On | BalancerCmd::Off => {
            let on = matches!(args.cmd, BalancerCmd::On);
            let was = admin.set_balancer(on).await?;
            outln!("balancer {} (was {})", on_off(on), on_off(was));
        }
        BalancerCmd::Run => {
            let run = admin.run_balancer().await?;
            if run.ran {
                outln!("balancer ran: {} move(s) planned, {} done", run.moves_calculated, run.moves_executed);
            } else {
                outln!("balancer did not run (it is off, or regions are in transition)");
            }
        }
        BalancerCmd::Status => outln!("balancer {}", on_off(admin.is_balancer_enabled().await?)),
    }
    Ok(())
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// Runs `basalt snapshot ...`.
pub async fn snapshot(args: SnapshotArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    match args.cmd {
        SnapshotCmd::Create { name, table } => {
            admin.snapshot(&name, &table).await?;
            outln!("took snapshot {name} of {table}");
        }
        SnapshotCmd::List { output } => {
            let list = admin.list_snapshots().await?;
            if output == AdminFormat::Json {
                outln!("{}", admin_json::snapshots(&list));
                return Ok(());
            }
            for s in list {
                outln!("{}  table={}  created_ms={}", s.name, s.table, s.creation_time);
            }
        }
        SnapshotCmd::Clone { name, table } => {
            admin.clone_snapshot(&name, &table).await?;
            outln!("cloned snapshot {name} into {table}");
        }
        SnapshotCmd::Restore { name, yes } => {
            confirm(&format!("restore snapshot {name}"), yes)?;
            admin.restore_snapshot(&name).await?;
            outln!("restored snapshot {name}");
        }
        SnapshotCmd::Delete { name, yes } => {
            confirm(&format!("delete snapshot {name}"), yes)?;
            admin.delete_snapshot(&name).await?;
            outln!("deleted snapshot {name}");
        }
    }
    Ok(())
}

/// Runs `basalt status`.
pub async fn status(args: StatusArgs, client: &Client) -> CliResult {
    let status = client.admin().cluster_status().await?;
    if args.output == AdminFormat::Json {
        outln!("{}", admin_json::status(&status));
        return Ok(());
    }
    outln!("HBase {}  cluster {}", status.version, status.cluster_id);
    outln!("master {}", status.master.as_deref().unwrap_or("(unknown)"));
    for backup in &status.backup_masters {
        outln!("backup master {backup}");
    }
    outln!("{} live server(s)", status.live_servers.len());
    for s in &status.live_servers {
        outln!("  {}  regions={}  requests/s={}", s.addr, s.regions, s.requests_per_second);
    }
    outln!("{} dead server(s)", status.dead_servers.len());
    for dead in &status.dead_servers {
        outln!("  {dead}");
    }
    outln!("{} region(s) in transition", status.regions_in_transition.len());
    for r in &status.regions_in_transition {
        outln!("  {} {} {}", r.table, r.region, r.state);
    }
    outln!("balancer {}", on_off(status.balancer_on));
    Ok(())
}

/// Runs `basalt regions TABLE`.
pub async fn regions(args: RegionsArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    // Loads come from the master (native RPC); through a gateway, the regions alone.
    let regions = match admin.list_regions_with_load(&args.table).await {
        Err(basalt::Error::InvalidInput(basalt::InvalidInput::Untranslatable { .. })) => {
            admin.list_regions(&args.table).await?.into_iter().map(|r| (r, None)).collect()
        }
        other => other?,
    };
    if args.output == AdminFormat::Json {
        outln!("{}", admin_json::regions(&args.table, &regions));
        return Ok(());
    }
    outln!("{} region(s) of {}", regions.len(), args.table);
    for (r, load) in regions {
        let start = if r.start_key.is_empty() { "(first)".to_owned() } else { escape(&r.start_key) };
        let end = if r.end_key.is_empty() { "(last)".to_owned() } else { escape(&r.end_key) };
        let load = load.map_or(String::new(), |l| {
            format!(
                "  files={} size={}MB memstore={}MB reads={} writes={}",
                l.store_files, l.store_file_size_mb, l.memstore_size_mb, l.read_requests, l.write_requests
            )
        });
        outln!("  [{start}, {end})  on {}:{}  id={}{load}", r.host, r.port.unwrap_or(0), r.region_id);
    }
    Ok(())
}
