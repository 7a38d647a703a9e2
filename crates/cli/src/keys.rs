//! `basalt keys encode | decode | plan | splits | analyze`: key design with a schema file.

use std::ops::Bound;
use std::path::{Path, PathBuf};

use basalt_rowkey::{hotspot, split, Field, Query, Schema, Value};
use bytes::Bytes;
use clap::{Args, Subcommand, ValueEnum};

use crate::analyze::{quantile_splits, region_table, sample_keys, svg};
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, hex, parse_bytes, show};

/// `basalt keys ...`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    cmd: KeysCmd,
}

/// A query over a schema: fixed leading values, then a range on the next field.
#[derive(Debug, Clone, Default, Args)]
pub struct QueryArgs {
    /// Value of the next leading field, in schema order (repeatable).
    #[arg(long = "fixed", value_name = "VALUE")]
    pub fixed: Vec<String>,
    /// Lower bound (inclusive) of the field after the fixed ones.
    #[arg(long, value_name = "VALUE")]
    pub from: Option<String>,
    /// Upper bound (exclusive, unless --inclusive) of the field after the fixed ones.
    #[arg(long, value_name = "VALUE")]
    pub to: Option<String>,
    /// Make --to inclusive.
    #[arg(long)]
    pub inclusive: bool,
}

#[derive(Debug, Subcommand)]
enum KeysCmd {
    /// Encode field values (in schema order) into a row key.
    #[command(after_help = "Example:\n  basalt keys encode --schema calls.toml 13812345678 20210915123045")]
    Encode {
        /// Schema file (TOML).
        #[arg(long, short)]
        schema: PathBuf,
        /// One value per value field, in schema order.
        #[arg(required = true, allow_hyphen_values = true)]
        values: Vec<String>,
    },
    /// Decode a row key (0x hex or \xNN-escaped) into its bucket and field values.
    #[command(after_help = "Example:\n  basalt keys decode --schema calls.toml 2_13812345678_20210915123045")]
    Decode {
        /// Schema file (TOML).
        #[arg(long, short)]
        schema: PathBuf,
        /// The key.
        key: String,
        /// The key is hex (with or without 0x).
        #[arg(long)]
        hex: bool,
    },
    /// Show the scan ranges (one per salt bucket involved) a query needs.
    #[command(after_help = "Example (three months, three salts):\n  basalt keys plan --schema calls.toml \
                            --fixed 13812345678 --from 20210901000000 --to 20211200000000")]
    Plan {
        /// Schema file (TOML).
        #[arg(long, short)]
        schema: PathBuf,
        #[command(flatten)]
        query: QueryArgs,
        /// Plan a descending scan.
        #[arg(long)]
        reverse: bool,
        /// Print keys as hex.
        #[arg(long)]
        hex: bool,
    },
    /// Print pre-split keys: per salt bucket of a schema, or by an algorithm.
    #[command(after_help = "Examples:\n  basalt keys splits --schema calls.toml\n  \
                            basalt keys splits --algo numbered --regions 6\n  basalt keys splits --algo hex --regions 4")]
    Splits {
        /// Schema file (TOML): one region per salt bucket.
        #[arg(long, short)]
        schema: Option<PathBuf>,
        /// Split algorithm (default: buckets when --schema is given).
        #[arg(long, value_enum)]
        algo: Option<SplitAlgo>,
        /// Number of regions.
        #[arg(long)]
        regions: Option<u32>,
        /// Print keys as hex.
        #[arg(long)]
        hex: bool,
    },
    /// Sample keys of a design and count them per region: the skew made visible.
    #[command(after_help = "Example:\n  basalt keys analyze --schema calls.toml --samples 100000 --svg regions.svg")]
    Analyze {
        /// Schema file (TOML).
        #[arg(long, short)]
        schema: PathBuf,
        /// Number of sample keys (time-like fields increase in write order).
        #[arg(long, default_value_t = 100_000)]
        samples: u64,
        /// Where the split keys come from.
        #[arg(long, value_enum, default_value = "auto")]
        split_by: SplitBy,
        /// Number of regions (default: the salt's bucket count, else 8).
        #[arg(long)]
        regions: Option<u32>,
        /// A file of split keys, one per line (escaped or 0x hex); overrides --split-by.
        #[arg(long)]
        split_file: Option<PathBuf>,
        /// Write an SVG bar chart of keys per region to this file.
        #[arg(long, value_name = "PATH")]
        svg: Option<PathBuf>,
        /// Random seed of the sample.
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
}

/// Split-key algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitAlgo {
    /// One region per salt bucket of the schema.
    Buckets,
    /// `0|, 1|, ...`: zero-padded bucket numbers, as the salted call records split.
    #[value(name = "numbered")]
    Numbered,
    /// HBase HexStringSplit.
    Hex,
    /// HBase DecimalStringSplit.
    Decimal,
    /// HBase UniformSplit (raw bytes).
    Uniform,
}

/// Where `keys analyze` takes its split keys from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitBy {
    /// Salt buckets when salted, else quantiles of the first 10% of the sample.
    Auto,
    /// One region per salt bucket.
    Buckets,
    /// Quantiles of the first 10% of the sample (pre-split on early data).
    Sample,
    /// `0|, 1|, ...`: zero-padded bucket numbers, as the salted call records split.
    #[value(name = "numbered")]
    Numbered,
    /// HBase HexStringSplit.
    Hex,
    /// HBase DecimalStringSplit.
    Decimal,
    /// HBase UniformSplit.
    Uniform,
}

/// Reads and parses a schema file; a missing or malformed file is a usage error.
pub fn load_schema(path: &Path) -> CliResult<Schema> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::usage(format!("cannot read schema file {}: {e}", path.display())))?;
    Schema::from_toml_str(&text).map_err(|e| CliError::usage(format!("schema file {}: {e}", path.display())))
}

fn value_field(schema: &Schema, i: usize) -> CliResult<&Field> {
    schema.value_fields().nth(i).ok_or_else(|| {
        CliError::usage(format!("the schema has {} value fields; too many values given", schema.value_count()))
    })
}

fn parse_value(schema: &Schema, i: usize, text: &str) -> CliResult<Value> {
    let field = value_field(schema, i)?;
    field.parse_value(text).map_err(|e| CliError::usage(format!("value {text:?} for field `{}`: {e}", field.name())))
}

/// Builds a [`Query`] from its command-line form.
pub fn build_query(schema: &Schema, q: &QueryArgs, reverse: bool) -> CliResult<Query> {
    let mut query = Query::new().reverse(reverse);
    for (i, v) in q.fixed.iter().enumerate() {
        query = query.fixed(parse_value(schema, i, v)?);
    }
    let next = q.fixed.len();
    let lower = match &q.from {
        Some(v) => Bound::Included(parse_value(schema, next, v)?),
        None => Bound::Unbounded,
    };
    let upper = match &q.to {
        Some(v) if q.inclusive => Bound::Included(parse_value(schema, next, v)?),
        Some(v) => Bound::Excluded(parse_value(schema, next, v)?),
        None => Bound::Unbounded,
    };
    if q.from.is_some() || q.to.is_some() {
        query = query.range(lower, upper);
    }
    Ok(query)
}

/// A `--regions` flag: one split key list entry per region, so it is bounded.
fn check_regions(n: u32) -> CliResult<u32> {
    if !(1..=MAX_REGIONS).contains(&n) {
        return Err(CliError::usage(format!("--regions {n}: use 1..={MAX_REGIONS}")));
    }
    Ok(n)
}

/// Most regions `--regions` accepts.
const MAX_REGIONS: u32 = 10_000;

fn algo_splits(algo: SplitAlgo, schema: Option<&Schema>, regions: Option<u32>) -> CliResult<Vec<Bytes>> {
    let need = || regions.ok_or_else(|| CliError::usage("--regions N is needed for this algorithm"));
    let n = match algo {
        SplitAlgo::Buckets => None,
        _ => Some(need()?),
    };
    let n = n.map(check_regions).transpose()?.unwrap_or(0);
    Ok(match algo {
        SplitAlgo::Buckets => {
            let schema = schema.ok_or_else(|| CliError::usage("--algo buckets needs --schema"))?;
            if schema.bucket_count().is_none() {
                return Err(CliError::usage("the schema has no salt: pick --algo numbered|hex|decimal|uniform"));
            }
            split::bucket_split_keys(schema)
        }
        SplitAlgo::Numbered => split::call_record_split_keys(n),
        SplitAlgo::Hex => split::hex_string_split(n),
        SplitAlgo::Decimal => split::decimal_string_split(n),
        SplitAlgo::Uniform => split::uniform_split(n),
    })
}

/// Split keys for a table: by algorithm, or the schema's buckets when only a schema is given.
pub fn splits_for(schema: Option<&Schema>, algo: Option<SplitAlgo>, regions: Option<u32>) -> CliResult<Vec<Bytes>> {
    match (algo, schema) {
        (Some(a), _) => algo_splits(a, schema, regions),
        (None, Some(_)) => algo_splits(SplitAlgo::Buckets, schema, regions),
        (None, None) => Err(CliError::usage("give --schema or --algo")),
    }
}

fn read_split_file(path: &Path) -> CliResult<Vec<Bytes>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::usage(format!("cannot read split file {}: {e}", path.display())))?;
    let mut keys = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| parse_bytes(l, false).map(Bytes::from))
        .collect::<CliResult<Vec<_>>>()?;
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// Runs `basalt keys ...`.
pub fn run(args: KeysArgs) -> CliResult {
    match args.cmd {
        KeysCmd::Encode { schema, values } => {
            let schema = load_schema(&schema)?;
            if values.len() != schema.value_count() {
                let names: Vec<&str> = schema.value_fields().map(|f| f.name()).collect();
                return Err(CliError::usage(format!(
                    "{} values given; the schema needs {} ({})",
                    values.len(),
                    names.len(),
                    names.join(", ")
                )));
            }
            let parsed =
                values.iter().enumerate().map(|(i, v)| parse_value(&schema, i, v)).collect::<CliResult<Vec<_>>>()?;
            let enc = schema.encode_report(&parsed)?;
            outln!("key     {}", escape(&enc.key));
            outln!("hex     {}", hex(&enc.key));
            if let Some(b) = enc.bucket {
                outln!("bucket  {b}");
            }
            outln!("length  {} bytes", enc.key.len());
            for w in enc.warnings {
                outln!("warning {w}");
            }
        }
        KeysCmd::Decode { schema, key, hex: as_hex } => {
            let schema = load_schema(&schema)?;
            let raw = parse_bytes(&key, as_hex)?;
            let decoded = schema.decode(&raw).map_err(|e| CliError::usage(format!("key {key:?}: {e}")))?;
            if let Some(b) = decoded.bucket {
                outln!("bucket  {b}");
            }
            for (f, v) in schema.value_fields().zip(&decoded.values) {
                outln!("{:<7} {v}", f.name());
            }
        }
        KeysCmd::Plan { schema, query, reverse, hex: as_hex } => {
            let schema = load_schema(&schema)?;
            let plan = schema.plan(&build_query(&schema, &query, reverse)?)?;
            outln!(
                "{} range(s), buckets {:?}{}{}",
                plan.ranges.len(),
                plan.buckets(),
                if plan.targeted { ", targeted" } else { "" },
                if plan.reverse { ", reversed" } else { "" }
            );
            outln!("{:>4}  {:>6}  {:<34}  stop (exclusive)", "#", "bucket", "start");
            for (i, r) in plan.ranges.iter().enumerate() {
                let bucket = r.bucket.map(|b| b.to_string()).unwrap_or_else(|| "-".into());
                let stop = if r.stop.is_empty() { "(end of table)".to_owned() } else { show(&r.stop, as_hex) };
                outln!("{i:>4}  {bucket:>6}  {:<34}  {stop}", show(&r.start, as_hex));
            }
        }
        KeysCmd::Splits { schema, algo, regions, hex: as_hex } => {
            let schema = schema.as_deref().map(load_schema).transpose()?;
            for k in splits_for(schema.as_ref(), algo, regions)? {
                outln!("{}", show(&k, as_hex));
            }
        }
        KeysCmd::Analyze { schema: path, samples, split_by, regions, split_file, svg: svg_path, seed } => {
            let schema = load_schema(&path)?;
            if !(1..=5_000_000).contains(&samples) {
                return Err(CliError::usage("--samples: use 1..=5000000"));
            }
            // Checked before sampling: the quantile splits hold one key per region.
            let regions = regions.map(check_regions).transpose()?;
            let keys = sample_keys(&schema, samples, seed)?;
            let regions_n = regions.or(schema.bucket_count()).unwrap_or(8);
            let splits = match (split_file, split_by) {
                (Some(f), _) => read_split_file(&f)?,
                (None, SplitBy::Buckets) => algo_splits(SplitAlgo::Buckets, Some(&schema), None)?,
                (None, SplitBy::Auto) if schema.bucket_count().is_some() => split::bucket_split_keys(&schema),
                (None, SplitBy::Auto | SplitBy::Sample) => {
                    quantile_splits(keys.get(..(keys.len() / 10).max(1)).unwrap_or(&keys), regions_n)
                }
                (None, SplitBy::Numbered) => algo_splits(SplitAlgo::Numbered, None, Some(regions_n))?,
                (None, SplitBy::Hex) => algo_splits(SplitAlgo::Hex, None, Some(regions_n))?,
                (None, SplitBy::Decimal) => algo_splits(SplitAlgo::Decimal, None, Some(regions_n))?,
                (None, SplitBy::Uniform) => algo_splits(SplitAlgo::Uniform, None, Some(regions_n))?,
            };
            let report = hotspot::analyze(&keys, &splits);
            let mut series = vec![("this design", report)];
            if schema.bucket_count().is_some() {
                // The same keys without their salt, against the same split keys.
                let logical = keys.iter().map(|k| schema.logical_key(k).map(Bytes::copy_from_slice));
                let logical = logical.collect::<Result<Vec<_>, _>>()?;
                series.push(("without salt", hotspot::analyze(&logical, &splits)));
            }
            let columns: Vec<(&str, &hotspot::HotspotReport)> = series.iter().map(|(n, r)| (*n, r)).collect();
            out!("{}", region_table(&splits, &columns));
            if let Some(p) = svg_path {
                let title = format!("keys per region: {}", path.display());
                std::fs::write(&p, svg(&title, &splits, &columns))
                    .map_err(|e| CliError::failed(format!("cannot write {}: {e}", p.display())))?;
                outln!("chart written to {}", p.display());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_rowkey::hotspot::SampleRng;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: KeysCmd,
    }

    fn run_keys(args: &[&str], schema: &Path) -> CliResult {
        let mut argv = vec!["keys".to_owned()];
        for a in args {
            argv.push(a.replace("SCHEMA", &schema.display().to_string()));
        }
        let cli = Cli::try_parse_from(argv).map_err(|e| CliError::usage(e.to_string()))?;
        run(KeysArgs { cmd: cli.cmd })
    }

    fn schema_file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("basalt-keys-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn analyze_refuses_an_absurd_region_count_before_allocating() {
        let path = schema_file("plain.toml", "[[fields]]\nname = \"a\"\ntype = \"u64\"\n");
        for n in ["0", "10001", "4000000000"] {
            let args = ["analyze", "--schema", "SCHEMA", "--samples", "100", "--split-by", "sample", "--regions", n];
            let err = run_keys(&args, &path).unwrap_err();
            assert_eq!(err.code, crate::error::EXIT_USAGE, "--regions {n}: {}", err.message);
            assert!(err.message.contains("--regions"), "{}", err.message);
        }
        let ok = ["analyze", "--schema", "SCHEMA", "--samples", "100", "--split-by", "sample", "--regions", "4"];
        run_keys(&ok, &path).unwrap();
    }

    #[test]
    fn decoding_arbitrary_hex_and_escapes_gives_errors_not_panics() {
        let path = schema_file(
            "salted.toml",
            "[salt]\nstrategy = \"call_record\"\nbuckets = 6\ninputs = [\"p\", \"t\"]\n\
             [[fields]]\nname = \"p\"\ntype = \"string\"\nwidth = 11\n\
             [[fields]]\ntype = \"literal\"\nvalue = \"_\"\n\
             [[fields]]\nname = \"t\"\ntype = \"decimal\"\ndigits = 14\n\
             [[fields]]\nname = \"r\"\ntype = \"reversed_string\"\norder = \"desc\"\n",
        );
        let mut rng = SampleRng::new(14);
        let alphabet: Vec<char> = "0123456789abcdefABCDEFxX\\é_|".chars().collect();
        for _ in 0..800 {
            let len = rng.below(48) as usize;
            let text: String = (0..len).map(|_| alphabet[rng.below(alphabet.len() as u64) as usize]).collect();
            for flags in [&["--hex"][..], &[][..]] {
                let mut args = vec!["decode", "--schema", "SCHEMA"];
                args.extend_from_slice(flags);
                args.push(&text);
                if let Err(e) = run_keys(&args, &path) {
                    assert_eq!(e.code, crate::error::EXIT_USAGE, "{text:?}: {}", e.message);
                }
            }
        }
    }
}
