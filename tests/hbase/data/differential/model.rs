//! The operations of the differential test, described once on the Rust side and rendered
//! for both clients: [`to_basalt`](Filt::to_basalt) and the builders' `basalt_*` methods
//! build Basalt's requests, `java.rs` writes the Java tool's lines.

use basalt::filter::{BitwiseOp, RowRange};
use basalt::{Bytes, Comparator, CompareOp, Delete, Filter, Get, Put, ReadOptions, RowMutations, Scan, ScanPaging};

/// One put: `row`, a put-level timestamp, cells with their own optional timestamps.
#[derive(Debug, Clone)]
pub struct PutD {
    pub row: Bytes,
    pub ts: Option<i64>,
    pub cells: Vec<(Bytes, Bytes, Bytes, Option<i64>)>,
}

impl PutD {
    pub fn basalt(&self) -> Put {
        let mut put = Put::new(self.row.clone());
        if let Some(ts) = self.ts {
            put = put.timestamp(ts);
        }
        for (f, q, v, ts) in &self.cells {
            put = match ts {
                Some(ts) => put.cell_at(f.clone(), q.clone(), v.clone(), *ts),
                None => put.cell(f.clone(), q.clone(), v.clone()),
            };
        }
        put
    }
}

/// What one part of a delete removes (Basalt's names).
#[derive(Debug, Clone)]
pub enum DelSpec {
    /// `latest_version(f, q)` / Java `addColumn(f, q)`.
    Latest(Bytes, Bytes),
    /// `version_at(f, q, ts)` / `addColumn(f, q, ts)`.
    VersionAt(Bytes, Bytes, i64),
    /// `all_versions(f, q)` / `addColumns(f, q)`.
    AllVersions(Bytes, Bytes),
    /// `versions_until(f, q, ts)` / `addColumns(f, q, ts)`.
    VersionsUntil(Bytes, Bytes, i64),
    /// `family(f)` / `addFamily(f)`.
    Family(Bytes),
    /// `family_until(f, ts)` / `addFamily(f, ts)`.
    FamilyUntil(Bytes, i64),
    /// `family_version(f, ts)` / `addFamilyVersion(f, ts)`.
    FamilyVersion(Bytes, i64),
}

/// One delete of a row: whole row (optionally until a timestamp) when `specs` is empty.
#[derive(Debug, Clone)]
pub struct DelD {
    pub row: Bytes,
    pub until: Option<i64>,
    pub specs: Vec<DelSpec>,
}

impl DelD {
    pub fn basalt(&self) -> Delete {
        let mut d = Delete::row(self.row.clone());
        if let Some(ts) = self.until {
            d = d.until(ts);
        }
        for spec in &self.specs {
            d = match spec.clone() {
                DelSpec::Latest(f, q) => d.latest_version(f, q),
                DelSpec::VersionAt(f, q, ts) => d.version_at(f, q, ts),
                DelSpec::AllVersions(f, q) => d.all_versions(f, q),
                DelSpec::VersionsUntil(f, q, ts) => d.versions_until(f, q, ts),
                DelSpec::Family(f) => d.family(f),
                DelSpec::FamilyUntil(f, ts) => d.family_until(f, ts),
                DelSpec::FamilyVersion(f, ts) => d.family_version(f, ts),
            };
        }
        d
    }
}

/// A put or a delete inside a row mutation (increments and appends: issue 25's
/// mutation API, see `mutation_api.rs`).
#[derive(Debug, Clone)]
pub enum Mutation {
    Put(PutD),
    Delete(DelD),
    /// Counters of a row: `(family, qualifier, amount)`.
    Increment(Bytes, Vec<(Bytes, Bytes, i64)>),
    /// Appends to cells of a row: `(family, qualifier, value)`.
    Append(Bytes, Vec<(Bytes, Bytes, Bytes)>),
}

impl Mutation {
    /// Whether it is an increment or an append.
    pub fn counts(&self) -> bool {
        matches!(self, Mutation::Increment(..) | Mutation::Append(..))
    }

    pub fn increment(row: &Bytes, cols: &[(Bytes, Bytes, i64)]) -> basalt::Increment {
        cols.iter().fold(basalt::Increment::new(row.clone()), |inc, (f, q, n)| inc.add(f.clone(), q.clone(), *n))
    }

    pub fn append(row: &Bytes, cols: &[(Bytes, Bytes, Bytes)]) -> basalt::Append {
        cols.iter().fold(basalt::Append::new(row.clone()), |app, (f, q, v)| app.add(f.clone(), q.clone(), v.clone()))
    }
}

/// Builds Basalt's row mutations in the given order.
pub fn basalt_mutations(row: &Bytes, muts: &[Mutation]) -> RowMutations {
    let mut rm = RowMutations::new(row.clone());
    for m in muts {
        rm = match m {
            Mutation::Put(p) => rm.put(p.basalt()),
            Mutation::Delete(d) => rm.delete(d.basalt()),
            Mutation::Increment(r, cols) => rm.increment(Mutation::increment(r, cols)),
            Mutation::Append(r, cols) => rm.append(Mutation::append(r, cols)),
        };
    }
    rm
}

/// Which Basalt call a conditional write uses (Java always uses `checkAndMutate`).
#[derive(Debug, Clone, Copy)]
pub enum CheckVia {
    /// `check_and_put` (operator `Equal`, one put).
    Put,
    /// `check_and_delete` (operator `Equal`, one delete).
    Delete,
    /// `check_and_mutate` with row mutations.
    Mutate,
}

/// A write applied to one table.
#[derive(Debug, Clone)]
pub enum Write {
    Put(PutD),
    PutMany(Vec<PutD>),
    Delete(DelD),
    DeleteMany(Vec<DelD>),
    Increment(Bytes, Vec<(Bytes, Bytes, i64)>),
    Append(Bytes, Vec<(Bytes, Bytes, Bytes)>),
    MutateRow(Bytes, Vec<Mutation>),
    Check {
        row: Bytes,
        family: Bytes,
        qualifier: Bytes,
        op: CompareOp,
        value: Option<Bytes>,
        via: CheckVia,
        muts: Vec<Mutation>,
    },
    /// One Basalt delete whose parts Java applies as separate deletes in one batch (the
    /// union a user means when naming one family twice: the case 5).
    DeleteAsUnion(DelD),
    // Issue 25's mutation API (`mutation_api.rs`).
    /// `mutate_row_with_results` / Java's `mutateRow` returning the increments' and
    /// appends' results.
    MutateRowResults(Bytes, Vec<Mutation>),
    /// `check_and_mutate_with` / Java's `checkAndMutate(CheckAndMutate)`.
    CheckWith(CheckWith),
    /// `Table::batch` / Java's `Table.batch`: each row at most once (Java leaves the
    /// order of a batch's actions open).
    Batch(Vec<BatchOp>),
    /// A write the gateway cannot carry, run on the gateway: Basalt must refuse it,
    /// Java skips it (so both tables stay alike).
    GatewayRefuses(Box<Write>),
}

/// The condition of a [`CheckWith`].
#[derive(Debug, Clone)]
pub enum CheckCond {
    Column { family: Bytes, qualifier: Bytes, op: CompareOp, value: Option<Bytes> },
    Filter(Filt),
}

/// A check-and-mutate of any condition and action (issue 25).
#[derive(Debug, Clone)]
pub struct CheckWith {
    pub row: Bytes,
    pub cond: CheckCond,
    pub time_range: Option<(i64, i64)>,
    /// One mutation (any kind) or, with `rows`, row mutations.
    pub muts: Vec<Mutation>,
    /// The action is row mutations (else exactly one mutation).
    pub rows: bool,
}

/// One action of a mixed batch.
#[derive(Debug, Clone)]
pub enum BatchOp {
    Get(GetD),
    Write(Mutation),
}

impl BatchOp {
    pub fn row(&self) -> &Bytes {
        match self {
            BatchOp::Get(g) => &g.row,
            BatchOp::Write(Mutation::Put(p)) => &p.row,
            BatchOp::Write(Mutation::Delete(d)) => &d.row,
            BatchOp::Write(Mutation::Increment(r, _) | Mutation::Append(r, _)) => r,
        }
    }
}

impl Write {
    /// Whether the Thrift2 gateway can carry this write (issue 25's refusals).
    pub fn gateway_carries(&self) -> bool {
        match self {
            Write::MutateRowResults(_, muts) => !muts.iter().any(Mutation::counts),
            Write::CheckWith(c) => {
                matches!(c.cond, CheckCond::Column { .. })
                    && c.time_range.is_none()
                    && !c.muts.iter().any(Mutation::counts)
            }
            Write::GatewayRefuses(_) => false,
            Write::Put(_)
            | Write::PutMany(_)
            | Write::Delete(_)
            | Write::DeleteMany(_)
            | Write::Increment(..)
            | Write::Append(..)
            | Write::MutateRow(..)
            | Write::Check { .. }
            | Write::DeleteAsUnion(_)
            | Write::Batch(_) => true,
        }
    }
}

impl Write {
    /// The rows this write touches (for listing the writes behind a differing row).
    pub fn rows(&self) -> Vec<&Bytes> {
        match self {
            Write::Put(p) => vec![&p.row],
            Write::PutMany(ps) => ps.iter().map(|p| &p.row).collect(),
            Write::Delete(d) | Write::DeleteAsUnion(d) => vec![&d.row],
            Write::DeleteMany(ds) => ds.iter().map(|d| &d.row).collect(),
            Write::Increment(r, _) | Write::Append(r, _) | Write::MutateRow(r, _) => vec![r],
            Write::Check { row, .. } => vec![row],
            Write::MutateRowResults(row, _) | Write::CheckWith(CheckWith { row, .. }) => vec![row],
            Write::Batch(ops) => ops.iter().map(BatchOp::row).collect(),
            Write::GatewayRefuses(w) => w.rows(),
        }
    }
}

/// A comparator, in Basalt's and Java's terms.
#[derive(Debug, Clone)]
pub enum Cmp {
    Binary(Bytes),
    BinaryPrefix(Bytes),
    Regex(String),
    RegexNoCase(String),
    Substring(String),
    Long(i64),
    Bit(Bytes, BitwiseOp),
    Null,
    /// `BinaryComponentComparator`: the bytes compared at an offset of the cell's.
    BinaryComponent(Bytes, u32),
}

impl Cmp {
    fn to_basalt(&self) -> Comparator {
        match self {
            Cmp::Binary(b) => Comparator::binary(b.clone()),
            Cmp::BinaryPrefix(b) => Comparator::binary_prefix(b.clone()),
            Cmp::Regex(s) => Comparator::regex_string(s.clone()),
            Cmp::RegexNoCase(s) => Comparator::regex_string_no_case(s.clone()),
            Cmp::Substring(s) => Comparator::substring(s.clone()),
            Cmp::Long(n) => Comparator::long(*n),
            Cmp::Bit(b, op) => Comparator::bit(b.clone(), *op),
            Cmp::Null => Comparator::null(),
            Cmp::BinaryComponent(b, offset) => Comparator::binary_component(b.clone(), *offset),
        }
    }
}

/// A filter tree, rendered to Basalt's typed builder and to Java's filter classes.
#[derive(Debug, Clone)]
pub enum Filt {
    All(Vec<Filt>),
    Any(Vec<Filt>),
    Skip(Box<Filt>),
    While(Box<Filt>),
    Prefix(Bytes),
    ColumnPrefix(Bytes),
    MultipleColumnPrefix(Vec<Bytes>),
    InclusiveStop(Bytes),
    Page(i64),
    Row(CompareOp, Cmp),
    Value(CompareOp, Cmp),
    Qualifier(CompareOp, Cmp),
    Family(CompareOp, Cmp),
    KeyOnly,
    FirstKeyOnly,
    Timestamps(Vec<i64>),
    ColumnRange(Option<(Bytes, bool)>, Option<(Bytes, bool)>),
    ColumnCountGet(i32),
    /// `exclude`: SingleColumnValueExcludeFilter.
    SingleColumnValue {
        family: Bytes,
        qualifier: Bytes,
        op: CompareOp,
        cmp: Cmp,
        if_missing: bool,
        latest_only: bool,
        exclude: bool,
    },
    ColumnPagination(i32, i32),
    ColumnPaginationFrom(i32, Bytes),
    DependentColumn {
        family: Bytes,
        qualifier: Bytes,
        drop: bool,
        value: Option<(CompareOp, Cmp)>,
    },
    ColumnValue(Bytes, Bytes, CompareOp, Cmp),
    KeyOnlyWithLengths,
    FuzzyRow(Vec<(Bytes, Bytes)>),
    MultiRowRange(Vec<(Bytes, bool, Bytes, bool)>),
    /// Filter-language text (Basalt's `Filter::parse`, Java's `ParseFilter`) and the
    /// filter it was written from.
    Text(String, Box<Filt>),
    /// Text HBase's `ParseFilter` refuses though the language's grammar allows it:
    /// Basalt parses the text, the Java side is given the filter it means.
    TextHBaseRefuses(String, Box<Filt>),
}

impl Filt {
    pub fn to_basalt(&self) -> Filter {
        match self {
            Filt::All(m) => Filter::all(m.iter().map(Filt::to_basalt)),
            Filt::Any(m) => Filter::any(m.iter().map(Filt::to_basalt)),
            Filt::Skip(f) => Filter::skip(f.to_basalt()),
            Filt::While(f) => Filter::while_match(f.to_basalt()),
            Filt::Prefix(p) => Filter::prefix(p.clone()),
            Filt::ColumnPrefix(p) => Filter::column_prefix(p.clone()),
            Filt::MultipleColumnPrefix(ps) => Filter::multiple_column_prefix(ps.iter().cloned()),
            Filt::InclusiveStop(r) => Filter::inclusive_stop(r.clone()),
            Filt::Page(n) => Filter::page(*n),
            Filt::Row(op, c) => Filter::row(*op, c.to_basalt()),
            Filt::Value(op, c) => Filter::value(*op, c.to_basalt()),
            Filt::Qualifier(op, c) => Filter::qualifier(*op, c.to_basalt()),
            Filt::Family(op, c) => Filter::family(*op, c.to_basalt()),
            Filt::KeyOnly => Filter::key_only(),
            Filt::FirstKeyOnly => Filter::first_key_only(),
            Filt::Timestamps(ts) => Filter::timestamps(ts.iter().copied()),
            Filt::ColumnRange(min, max) => Filter::column_range(min.clone(), max.clone()),
            Filt::ColumnCountGet(n) => Filter::column_count_get(*n),
            Filt::SingleColumnValue { family, qualifier, op, cmp, if_missing, latest_only, exclude } => {
                let (f, q, c) = (family.clone(), qualifier.clone(), cmp.to_basalt());
                let builder = match exclude {
                    true => Filter::single_column_value_exclude(f, q, *op, c),
                    false => Filter::single_column_value(f, q, *op, c),
                };
                builder.filter_if_missing(*if_missing).latest_version_only(*latest_only).build()
            }
            Filt::ColumnPagination(limit, offset) => Filter::column_pagination(*limit, *offset),
            Filt::ColumnPaginationFrom(limit, column) => Filter::column_pagination_from(*limit, column.clone()),
            Filt::DependentColumn { family, qualifier, drop, value } => {
                let mut d = Filter::dependent_column(family.clone(), qualifier.clone()).drop_dependent_column(*drop);
                if let Some((op, cmp)) = value {
                    d = d.value(*op, cmp.to_basalt());
                }
                d.build()
            }
            Filt::ColumnValue(f, q, op, cmp) => Filter::column_value(f.clone(), q.clone(), *op, cmp.to_basalt()),
            Filt::KeyOnlyWithLengths => Filter::key_only_with_lengths(),
            Filt::FuzzyRow(keys) => Filter::fuzzy_row(keys.iter().cloned()),
            Filt::MultiRowRange(ranges) => Filter::multi_row_range(
                ranges.iter().map(|(a, ai, b, bi)| RowRange::new(a.clone(), *ai, b.clone(), *bi)),
            ),
            Filt::Text(text, typed) | Filt::TextHBaseRefuses(text, typed) => super::filter_text::parse(text, typed),
        }
    }

    /// Whether HBase counts this filter as a row filter (`hasFilterRow`), which it refuses
    /// together with `batch`.
    pub fn has_filter_row(&self) -> bool {
        match self {
            Filt::All(m) | Filt::Any(m) => m.iter().any(Filt::has_filter_row),
            Filt::Text(_, typed) | Filt::TextHBaseRefuses(_, typed) => typed.has_filter_row(),
            Filt::Skip(_)
            | Filt::While(_)
            | Filt::Page(_)
            | Filt::SingleColumnValue { .. }
            | Filt::DependentColumn { .. } => true,
            Filt::Prefix(_)
            | Filt::ColumnPrefix(_)
            | Filt::MultipleColumnPrefix(_)
            | Filt::InclusiveStop(_)
            | Filt::Row(..)
            | Filt::Value(..)
            | Filt::Qualifier(..)
            | Filt::Family(..)
            | Filt::KeyOnly
            | Filt::FirstKeyOnly
            | Filt::Timestamps(_)
            | Filt::ColumnRange(..)
            | Filt::ColumnCountGet(_)
            | Filt::ColumnPagination(..)
            | Filt::ColumnPaginationFrom(..)
            | Filt::ColumnValue(..)
            | Filt::KeyOnlyWithLengths
            | Filt::FuzzyRow(_)
            | Filt::MultiRowRange(_) => false,
        }
    }

    /// Whether the filter makes some families non-essential (`SingleColumnValueFilter`
    /// with `filter_if_missing`, `ColumnValueFilter`): HBase refuses that on a reversed
    /// scan while families load on demand.
    pub fn needs_joined_heap(&self) -> bool {
        match self {
            Filt::All(m) | Filt::Any(m) => m.iter().any(Filt::needs_joined_heap),
            Filt::Skip(f) | Filt::While(f) | Filt::Text(_, f) | Filt::TextHBaseRefuses(_, f) => f.needs_joined_heap(),
            Filt::SingleColumnValue { if_missing, .. } => *if_missing,
            // Only its own family is essential to a ColumnValueFilter.
            Filt::ColumnValue(..) => true,
            Filt::Prefix(_)
            | Filt::ColumnPrefix(_)
            | Filt::MultipleColumnPrefix(_)
            | Filt::InclusiveStop(_)
            | Filt::Page(_)
            | Filt::Row(..)
            | Filt::Value(..)
            | Filt::Qualifier(..)
            | Filt::Family(..)
            | Filt::KeyOnly
            | Filt::FirstKeyOnly
            | Filt::Timestamps(_)
            | Filt::ColumnRange(..)
            | Filt::ColumnCountGet(_)
            | Filt::ColumnPagination(..)
            | Filt::ColumnPaginationFrom(..)
            | Filt::DependentColumn { .. }
            | Filt::KeyOnlyWithLengths
            | Filt::FuzzyRow(_)
            | Filt::MultiRowRange(_) => false,
        }
    }
}

/// The options a get and a scan share.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// `(family, None)`: the whole family; `(family, Some(q))`: one column.
    pub columns: Vec<(Bytes, Option<Bytes>)>,
    pub max_versions: Option<u32>,
    pub time_range: Option<(i64, i64)>,
    pub filter: Option<Filt>,
    /// `max_results_per_family` / Java `setMaxResultsPerColumnFamily`.
    pub per_family_limit: Option<u32>,
    /// `row_offset_per_family` / Java `setRowOffsetPerColumnFamily`.
    pub per_family_offset: Option<u32>,
}

/// A get.
#[derive(Debug, Clone)]
pub struct GetD {
    pub row: Bytes,
    pub ts: Option<i64>,
    pub opts: Opts,
}

impl Opts {
    /// The shared options as Basalt's `ReadOptions` (what `Get`'s and `Scan`'s own
    /// setters edit).
    pub fn basalt(&self) -> ReadOptions {
        let mut o = ReadOptions::new();
        for (f, q) in &self.columns {
            o = match q {
                Some(q) => o.column(f.clone(), q.clone()),
                None => o.family(f.clone()),
            };
        }
        if let Some(n) = self.max_versions {
            o = o.max_versions(n);
        }
        if let Some((min, max)) = self.time_range {
            o = o.time_range(min, max);
        }
        if let Some(f) = &self.filter {
            o = o.filter(f.to_basalt());
        }
        o
    }
}

impl GetD {
    pub fn basalt(&self) -> Get {
        let mut g = Get::new(self.row.clone()).read_options(self.opts.basalt());
        if let Some(n) = self.opts.per_family_limit {
            g = g.max_results_per_family(n);
        }
        if let Some(n) = self.opts.per_family_offset {
            g = g.row_offset_per_family(n);
        }
        match self.ts {
            Some(ts) => g.timestamp(ts),
            None => g,
        }
    }
}

/// A scan, with bounds in key order whatever the direction (Basalt's convention).
#[derive(Debug, Clone, Default)]
pub struct ScanD {
    pub start: Bytes,
    pub stop: Bytes,
    /// Set instead of `start`/`stop`: `Scan::prefix`.
    pub prefix: Option<Bytes>,
    /// `start_exclusive` instead of `start` (a non-empty start only).
    pub start_exclusive: bool,
    /// `stop_inclusive` instead of `stop` (a non-empty stop only).
    pub stop_inclusive: bool,
    pub reversed: bool,
    pub limit: Option<u64>,
    /// `Scan::timestamp`: only cells at exactly this timestamp.
    pub ts: Option<i64>,
    /// `Scan::family_time_range`.
    pub family_ranges: Vec<(Bytes, i64, i64)>,
    pub caching: Option<u32>,
    pub batch: Option<u32>,
    /// `Scan::load_column_families_on_demand` (`None`: the server's default).
    pub on_demand: Option<bool>,
    pub opts: Opts,
    /// `Scan::raw` / Java `setRaw(true)`: delete markers and deleted cells too.
    pub raw: bool,
    /// `Scan::allow_partial_results` / Java `setAllowPartialResults(true)`.
    pub allow_partial: bool,
    /// `Scan::max_result_size` / Java `setMaxResultSize`.
    pub max_result_size: Option<u64>,
}

impl ScanD {
    /// Whether the scan uses an option of the scan-extras group (raw, per-family
    /// window, partial results, result size): the Java tool then gets them too.
    pub fn has_extras(&self) -> bool {
        self.raw
            || self.allow_partial
            || self.max_result_size.is_some()
            || self.opts.per_family_limit.is_some()
            || self.opts.per_family_offset.is_some()
    }

    /// The scan-extras group on Basalt's scan.
    fn basalt_extras(&self, mut s: Scan) -> Scan {
        if self.raw {
            s = s.raw(true);
        }
        if self.allow_partial {
            s = s.allow_partial_results(true);
        }
        if let Some(n) = self.max_result_size {
            s = s.max_result_size(n);
        }
        if let Some(n) = self.opts.per_family_limit {
            s = s.max_results_per_family(n);
        }
        if let Some(n) = self.opts.per_family_offset {
            s = s.row_offset_per_family(n);
        }
        s
    }
}

impl ScanD {
    /// Basalt's scan with the given paging and regions in parallel.
    pub fn basalt(&self, paging: ScanPaging, parallel: usize) -> Scan {
        // The shared options first: the setters below edit the same value.
        let scan = Scan::new().read_options(self.opts.basalt());
        let mut s = match &self.prefix {
            Some(p) => scan.prefix(p.clone()),
            None => {
                let s = match self.start_exclusive {
                    true => scan.start_exclusive(&self.start),
                    false => scan.start(self.start.clone()),
                };
                match self.stop_inclusive {
                    true => s.stop_inclusive(&self.stop),
                    false => s.stop(self.stop.clone()),
                }
            }
        };
        if let Some(ts) = self.ts {
            s = s.timestamp(ts);
        }
        for (f, min, max) in &self.family_ranges {
            s = s.family_time_range(f.clone(), *min, *max);
        }
        s = s.reversed(self.reversed).paging(paging).parallel_regions(parallel);
        if let Some(n) = self.limit {
            s = s.limit(n);
        }
        if let Some(n) = self.caching {
            s = s.caching(n);
        }
        if let Some(n) = self.batch {
            s = s.batch(n);
        }
        if let Some(on_demand) = self.on_demand {
            s = s.load_column_families_on_demand(on_demand);
        }
        self.basalt_extras(s)
    }
}

/// A read run against both tables through both clients.
#[derive(Debug, Clone)]
pub enum Read {
    Get(GetD),
    GetMany(Vec<GetD>),
    Exists(GetD),
    ExistsMany(Vec<GetD>),
    Scan(ScanD),
}
