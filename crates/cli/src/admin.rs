//! `basalt ns ...` and `basalt table ...`: namespaces, tables, families, split keys.

use std::collections::BTreeMap;
use std::path::PathBuf;

use basalt::{Admin, BlockEncoding, BloomFilter, Client, ColumnFamily, Compression, TableDescriptor};
use bytes::Bytes;
use clap::{Args, Subcommand};

use crate::admin_json::{self, AdminFormat};
use crate::cluster::confirm;
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, parse_bytes};
use crate::keys::{load_schema, splits_for, SplitAlgo};

/// `basalt ns ...`.
#[derive(Debug, Args)]
pub struct NsArgs {
    #[command(subcommand)]
    cmd: NsCmd,
}

#[derive(Debug, Subcommand)]
enum NsCmd {
    /// Create a namespace.
    #[command(after_help = "Example:\n  basalt ns create telecom --config owner=billing")]
    Create {
        /// Namespace name.
        name: String,
        /// Configuration entries KEY=VALUE (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
    },
    /// List namespaces.
    #[command(after_help = "Examples:\n  basalt ns list\n  basalt ns list -o json   # {\"namespaces\": [name]}")]
    List {
        /// Output format: text, or one JSON document.
        #[arg(long, short, value_enum, default_value = "text")]
        output: AdminFormat,
    },
    /// Show a namespace's configuration and tables.
    #[command(after_help = "Examples:\n  basalt ns describe telecom\n  \
                            basalt ns describe telecom -o json   # {\"name\", \"config\": {k: v}, \"tables\": [name]}")]
    Describe {
        /// Namespace name.
        name: String,
        /// Output format: text, or one JSON document.
        #[arg(long, short, value_enum, default_value = "text")]
        output: AdminFormat,
    },
    /// Change a namespace's configuration: set and remove entries, keep the others.
    #[command(after_help = "Example:\n  basalt ns alter telecom --set owner=billing --unset retention")]
    Alter {
        /// Namespace name.
        name: String,
        /// Entries to set, KEY=VALUE (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Entries to remove, KEY (repeatable).
        #[arg(long = "unset", value_name = "KEY")]
        unset: Vec<String>,
    },
    /// Delete an (empty) namespace.
    #[command(after_help = "Example:\n  basalt ns delete telecom")]
    Delete {
        /// Namespace name.
        name: String,
    },
}

/// `basalt table ...`.
#[derive(Debug, Args)]
pub struct TableArgs {
    #[command(subcommand)]
    cmd: TableCmd,
}

#[derive(Debug, Subcommand)]
enum TableCmd {
    /// Create a table with column families and optional split keys.
    #[command(
        after_help = "Examples:\n  basalt table create telecom:calls --family d:versions=1,bloom=row,ttl=31536000 \
                            --schema calls.toml\n  basalt table create logs --family d --algo hex --regions 8\n  \
                            basalt table create t --split 0x10 --split 0x20\n\n\
                            Family settings: versions, min_versions, ttl (s), bloom=none|row|rowcol, \
                            compression=none|gz|snappy|lz4|zstd,\n  encoding=none|prefix|diff|fast_diff|row_index_v1, \
                            blocksize (bytes), in_memory=true|false, block_cache=true|false, dfs_replication"
    )]
    Create {
        /// Table name (`table` or `namespace:table`).
        name: String,
        /// Column family NAME[:key=value,...] (repeatable; default `d`).
        #[arg(long = "family", short = 'f', value_name = "SPEC")]
        families: Vec<String>,
        /// A split key, escaped or 0x hex (repeatable).
        #[arg(long = "split", value_name = "KEY")]
        splits: Vec<String>,
        /// Pre-split with one region per salt bucket of this schema file.
        #[arg(long, short)]
        schema: Option<PathBuf>,
        /// Pre-split with an algorithm (with --regions).
        #[arg(long, value_enum)]
        algo: Option<SplitAlgo>,
        /// Number of regions for --algo.
        #[arg(long)]
        regions: Option<u32>,
        /// Serve each region from N region servers: the primary and N-1 read-only
        /// replicas for timeline reads (1 to 65536; default HBase's, 1).
        #[arg(long, value_name = "N")]
        region_replication: Option<u32>,
    },
    /// List tables (of one namespace, or all).
    #[command(after_help = "Examples:\n  basalt table list --namespace telecom\n  \
                            basalt table list -o json   # {\"tables\": [name]}")]
    List {
        /// Only this namespace.
        #[arg(long, short)]
        namespace: Option<String>,
        /// Output format: text, or one JSON document.
        #[arg(long, short, value_enum, default_value = "text")]
        output: AdminFormat,
    },
    /// Show a table's families, settings and regions.
    #[command(after_help = "Examples:\n  basalt table describe telecom:calls\n  \
                            basalt table describe telecom:calls -o json   # {\"name\", \"enabled\", \
                            \"region_replication\", \"settings\", \"families\": [..], \"regions\": [..]}")]
    Describe {
        /// Table name.
        name: String,
        /// Output format: text, or one JSON document.
        #[arg(long, short, value_enum, default_value = "text")]
        output: AdminFormat,
    },
    /// Stop serving a table (needed by nothing: drop and truncate disable it themselves).
    #[command(after_help = "Example:\n  basalt table disable telecom:calls")]
    Disable {
        /// Table name.
        name: String,
    },
    /// Serve a disabled table again.
    #[command(after_help = "Example:\n  basalt table enable telecom:calls")]
    Enable {
        /// Table name.
        name: String,
    },
    /// Remove every row, keeping the table's families and settings (and its regions,
    /// unless --drop-splits).
    #[command(after_help = "Example:\n  basalt table truncate telecom:calls --yes")]
    Truncate {
        /// Table name.
        name: String,
        /// Start again from one region.
        #[arg(long)]
        drop_splits: bool,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
    /// Change a table: add, change or delete families, change table settings.
    #[command(after_help = "Examples:\n  basalt table alter telecom:calls --add-family x:versions=2\n  \
                      basalt table alter telecom:calls --modify-family d:versions=5,ttl=86400\n  \
                      basalt table alter telecom:calls --delete-family x --yes\n  \
                      basalt --native gateway table alter telecom:calls --set MAX_FILESIZE=10737418240\n\n\
                      A modified family gets exactly the settings given (others return to HBase's defaults). \
                      Table settings (--set) need native RPC (--native) or a gateway without -f.")]
    Alter {
        /// Table name.
        name: String,
        /// A family to add, NAME[:key=value,...] (repeatable).
        #[arg(long = "add-family", value_name = "SPEC")]
        add: Vec<String>,
        /// A family's new settings, NAME[:key=value,...] (repeatable).
        #[arg(long = "modify-family", value_name = "SPEC")]
        modify: Vec<String>,
        /// A family to delete with its data (repeatable).
        #[arg(long = "delete-family", value_name = "NAME")]
        delete: Vec<String>,
        /// A table setting by HBase's name, KEY=VALUE (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// Do not ask before deleting families.
        #[arg(long)]
        yes: bool,
    },
    /// Disable and delete a table (asks first, or --yes).
    #[command(after_help = "Example:\n  basalt table drop telecom:calls --yes")]
    Drop {
        /// Table name.
        name: String,
        /// Succeed when the table does not exist.
        #[arg(long)]
        if_exists: bool,
        /// Drop without asking (required when not on a terminal): the table's data is lost.
        #[arg(long)]
        yes: bool,
    },
}

fn bool_of(k: &str, v: &str) -> CliResult<bool> {
    match v {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(CliError::usage(format!("{k}={v}: use true or false"))),
    }
}

fn num_of(k: &str, v: &str) -> CliResult<u32> {
    v.parse().map_err(|_| CliError::usage(format!("{k}={v}: not a non-negative number")))
}

/// Parses `NAME[:key=value,...]` into a column family.
pub fn parse_family(spec: &str) -> CliResult<ColumnFamily> {
    let (name, settings) = spec.split_once(':').unwrap_or((spec, ""));
    if name.is_empty() {
        return Err(CliError::usage(format!("family {spec:?} has no name")));
    }
    let mut f = ColumnFamily::new(name.to_owned());
    for kv in settings.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) =
            kv.split_once('=').ok_or_else(|| CliError::usage(format!("family setting {kv:?} is not key=value")))?;
        let bad = |choices: &str| CliError::usage(format!("{k}={v}: use {choices}"));
        f = match k {
            "versions" => f.max_versions(num_of(k, v)?),
            "min_versions" => f.min_versions(num_of(k, v)?),
            "ttl" => f.ttl_seconds(num_of(k, v)?),
            "blocksize" => f.block_size(num_of(k, v)?),
            "in_memory" => f.in_memory(bool_of(k, v)?),
            "block_cache" => f.block_cache(bool_of(k, v)?),
            "dfs_replication" => f.dfs_replication(u16::try_from(num_of(k, v)?).map_err(|_| bad("a small number"))?),
            "bloom" => f.bloom_filter(match v {
                "none" => BloomFilter::None,
                "row" => BloomFilter::Row,
                "rowcol" => BloomFilter::RowCol,
                _ => return Err(bad("none|row|rowcol")),
            }),
            "compression" => f.compression(match v {
                "none" => Compression::None,
                "gz" => Compression::Gz,
                "snappy" => Compression::Snappy,
                "lz4" => Compression::Lz4,
                "zstd" => Compression::Zstd,
                _ => return Err(bad("none|gz|snappy|lz4|zstd")),
            }),
            "encoding" => f.block_encoding(match v {
                "none" => BlockEncoding::None,
                "prefix" => BlockEncoding::Prefix,
                "diff" => BlockEncoding::Diff,
                "fast_diff" => BlockEncoding::FastDiff,
                "row_index_v1" => BlockEncoding::RowIndexV1,
                _ => return Err(bad("none|prefix|diff|fast_diff|row_index_v1")),
            }),
            _ => return Err(CliError::usage(format!("unknown family setting {k:?}"))),
        };
    }
    Ok(f)
}

fn describe_family(f: &ColumnFamily) -> String {
    let mut parts = vec![escape(f.name())];
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            parts.push(format!("{k}={v}"));
        }
    };
    push("versions", f.get_max_versions().map(|v| v.to_string()));
    push("ttl", f.get_ttl_seconds().map(|v| if v == i32::MAX { "forever".into() } else { v.to_string() }));
    push("bloom", f.get_bloom_filter().map(|v| format!("{v:?}")));
    push("compression", f.get_compression().map(|v| format!("{v:?}")));
    push("encoding", f.get_block_encoding().map(|v| format!("{v:?}")));
    push("blocksize", f.get_block_size().map(|v| v.to_string()));
    push("in_memory", f.get_in_memory().map(|v| v.to_string()));
    parts.join("  ")
}

/// Runs `basalt ns ...`.
pub async fn run_ns(args: NsArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    match args.cmd {
        NsCmd::Create { name, config } => {
            let mut map = BTreeMap::new();
            set_entries(&mut map, "--config", &config)?;
            admin.create_namespace(&name, map).await?;
            outln!("created namespace {name}");
        }
        NsCmd::List { output } => {
            let names = admin.list_namespaces().await?;
            if output == AdminFormat::Json {
                outln!("{}", admin_json::namespaces(&names));
                return Ok(());
            }
            for ns in names {
                outln!("{ns}");
            }
        }
        NsCmd::Describe { name, output } => {
            let config = admin.describe_namespace(&name).await?;
            if output == AdminFormat::Json {
                let tables = admin.list_tables(&name).await?;
                outln!("{}", admin_json::namespace(&name, &config, &tables));
                return Ok(());
            }
            outln!("namespace {name}");
            for (k, v) in config {
                outln!("  {k} = {v}");
            }
            let tables = admin.list_tables(&name).await?;
            outln!("  tables: {}", if tables.is_empty() { "(none)".to_owned() } else { tables.join(", ") });
        }
        NsCmd::Alter { name, set, unset } => {
            if set.is_empty() && unset.is_empty() {
                return Err(CliError::usage("ns alter: nothing to change (give --set KEY=VALUE or --unset KEY)"));
            }
            let mut config = admin.describe_namespace(&name).await?;
            set_entries(&mut config, "--set", &set)?;
            for key in &unset {
                config.remove(key);
            }
            admin.modify_namespace(&name, config).await?;
            outln!("altered namespace {name}");
        }
        NsCmd::Delete { name } => {
            admin.delete_namespace(&name).await?;
            outln!("deleted namespace {name}");
        }
    }
    Ok(())
}

/// Adds `KEY=VALUE` entries (given after `flag`) to `map`.
fn set_entries(map: &mut BTreeMap<String, String>, flag: &str, entries: &[String]) -> CliResult {
    for kv in entries {
        let (k, v) = kv.split_once('=').ok_or_else(|| CliError::usage(format!("{flag} {kv:?} is not KEY=VALUE")))?;
        map.insert(k.to_owned(), v.to_owned());
    }
    Ok(())
}

/// Runs `basalt table ...`.
pub async fn run_table(args: TableArgs, client: &Client) -> CliResult {
    let admin = client.admin();
    match args.cmd {
        TableCmd::Create { name, families, splits, schema, algo, regions, region_replication } => {
            let families = if families.is_empty() { vec!["d".to_owned()] } else { families };
            let mut desc = TableDescriptor::new(name.clone());
            if let Some(replicas) = region_replication {
                desc = desc.region_replication(replicas);
            }
            for f in &families {
                desc = desc.family(parse_family(f)?);
            }
            let mut keys: Vec<Bytes> =
                splits.iter().map(|s| parse_bytes(s, false).map(Bytes::from)).collect::<CliResult<_>>()?;
            if schema.is_some() || algo.is_some() {
                let schema = schema.as_deref().map(load_schema).transpose()?;
                keys.extend(splits_for(schema.as_ref(), algo, regions)?);
            }
            if keys.iter().any(|k| k.is_empty()) {
                return Err(CliError::usage("a split key must not be empty"));
            }
            keys.sort();
            keys.dedup();
            admin.create_table(&desc, &keys).await?;
            outln!("created table {name} with {} region(s)", keys.len() + 1);
        }
        TableCmd::List { namespace, output } => {
            let names = match namespace {
                Some(ns) => admin.list_tables(&ns).await?,
                None => admin.list_tables_matching(".*", false).await?,
            };
            if output == AdminFormat::Json {
                outln!("{}", admin_json::tables(&names));
                return Ok(());
            }
            for n in names {
                outln!("{n}");
            }
        }
        TableCmd::Describe { name, output } => {
            let desc = admin.describe_table(&name).await?;
            let enabled = admin.is_table_enabled(&name).await?;
            if output == AdminFormat::Json {
                let regions = client.table(&name)?.region_locations().await?;
                outln!("{}", admin_json::table(&desc, enabled, &regions));
                return Ok(());
            }
            outln!("table {}  ({})", desc.name(), if enabled { "enabled" } else { "disabled" });
            if let Some(replicas) = desc.get_region_replication() {
                outln!("  region replication {replicas}");
            }
            for (k, v) in desc.settings() {
                outln!("  {k} = {v}");
            }
            for f in desc.families() {
                outln!("  family {}", describe_family(f));
            }
            let regions = client.table(&name)?.region_locations().await?;
            outln!("  {} region(s):", regions.len());
            for r in regions {
                let start = if r.start_key.is_empty() { "(first)".to_owned() } else { escape(&r.start_key) };
                let end = if r.end_key.is_empty() { "(last)".to_owned() } else { escape(&r.end_key) };
                outln!("    [{start}, {end})  on {}:{}", r.host, r.port.unwrap_or(0));
            }
        }
        TableCmd::Disable { name } => {
            admin.disable_table(&name).await?;
            outln!("disabled table {name}");
        }
        TableCmd::Enable { name } => {
            admin.enable_table(&name).await?;
            outln!("enabled table {name}");
        }
        TableCmd::Truncate { name, drop_splits, yes } => {
            confirm(&format!("truncate table {name}"), yes)?;
            admin.truncate_table(&name, !drop_splits).await?;
            outln!("truncated table {name}");
        }
        TableCmd::Alter { name, add, modify, delete, settings, yes } => {
            alter(&admin, &name, Alteration { add, modify, delete, settings, yes }).await?;
        }
        TableCmd::Drop { name, if_exists, yes } => {
            if !admin.table_exists(&name).await? {
                if if_exists {
                    outln!("table {name} does not exist");
                    return Ok(());
                }
                return Err(CliError::usage(format!("table not found: {name}")));
            }
            confirm(&format!("drop table {name}"), yes)?;
            if admin.is_table_enabled(&name).await? {
                admin.disable_table(&name).await?;
            }
            admin.delete_table(&name).await?;
            outln!("dropped table {name}");
        }
    }
    Ok(())
}

/// What `basalt table alter` changes.
struct Alteration {
    add: Vec<String>,
    modify: Vec<String>,
    delete: Vec<String>,
    settings: Vec<String>,
    yes: bool,
}

/// Runs `basalt table alter`: families one by one, then the table settings (on the
/// table as described).
async fn alter(admin: &Admin, name: &str, change: Alteration) -> CliResult {
    if change.add.is_empty() && change.modify.is_empty() && change.delete.is_empty() && change.settings.is_empty() {
        return Err(CliError::usage("table alter: nothing to change (see --help)"));
    }
    let add = change.add.iter().map(|f| parse_family(f)).collect::<CliResult<Vec<_>>>()?;
    let modify = change.modify.iter().map(|f| parse_family(f)).collect::<CliResult<Vec<_>>>()?;
    let mut settings = Vec::with_capacity(change.settings.len());
    for kv in &change.settings {
        let (k, v) = kv.split_once('=').ok_or_else(|| CliError::usage(format!("--set {kv:?} is not KEY=VALUE")))?;
        settings.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    if !change.delete.is_empty() {
        confirm(
            &format!(
                "delete famil{} {} of {name}",
                if change.delete.len() == 1 { "y" } else { "ies" },
                change.delete.join(", ")
            ),
            change.yes,
        )?;
    }
    for family in &add {
        admin.add_family(name, family).await?;
        outln!("added family {}", escape(family.name()));
    }
    for family in &modify {
        admin.modify_family(name, family).await?;
        outln!("modified family {}", escape(family.name()));
    }
    for family in &change.delete {
        admin.delete_family(name, family.as_bytes()).await?;
        outln!("deleted family {family}");
    }
    if !settings.is_empty() {
        let mut desc = admin.describe_table(name).await?;
        for (k, v) in settings {
            desc = desc.setting(k, v);
        }
        admin.modify_table(&desc).await?;
        outln!("changed the settings of {name}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_specs() {
        let f =
            parse_family("d:versions=3,ttl=60,bloom=rowcol,compression=gz,encoding=fast_diff,in_memory=true").unwrap();
        assert_eq!(f.get_max_versions(), Some(3));
        assert_eq!(f.get_ttl_seconds(), Some(60));
        assert_eq!(f.get_bloom_filter(), Some(BloomFilter::RowCol));
        assert_eq!(f.get_compression(), Some(Compression::Gz));
        assert_eq!(f.get_block_encoding(), Some(BlockEncoding::FastDiff));
        assert_eq!(f.get_in_memory(), Some(true));
        assert_eq!(parse_family("m").unwrap().name().as_ref(), b"m");
        for bad in ["", ":versions=1", "d:versions", "d:versions=-1", "d:bloom=huge", "d:colour=red"] {
            assert!(parse_family(bad).is_err(), "{bad}");
        }
    }
}
