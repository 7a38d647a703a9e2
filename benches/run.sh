#!/usr/bin/env bash
# benches/run.sh: Basalt beside the clients its users would otherwise pick, on the
# same freshly loaded data in one run: happybase over HBase's Thrift1 gateway, a
# plain Python Thrift2 client (thriftpy2 + thrift-idl/hbase.thrift), seed 002's
# Socorro-style heapq merge, and the Java native client (hbase-client). Basalt itself
# can run twice more: over HBase's native RPC (basalt-native) and as built from another
# git revision (basalt@REV, --baseline-rev).
#
#   benches/run.sh [--rows 500000] [--salts 16] [--rounds 3] [--gets 20000]
#                  [--cold-gets 20000] [--tasks 16] [--memory-rows 1000000,4000000|""]
#                  [--only WORKLOADS] [--peers PEERS] [--profile DIR]
#                  [--profile-client NAME] [--baseline-rev REV [--baseline-native]]
#
# A subset, to measure one workload against one peer cheaply:
#   --only LIST     comma-separated, from write,scan,scan_ahead,merged,prefix,gets,gets_cold,
#                   floor,memory (default: all). scan_ahead: the full scan with 4 regions
#                   read at once (Scan::parallel_regions(4), same rows in the same order)
#                   through Basalt; the peers, which have no such mode, run their full
#                   scan. Without write, Basalt loads the data untimed. floor:
#                   each read round ends with a full scan whose filter returns nothing
#                   (basalt-native, else Basalt): the region server's own CPU per row,
#                   reported beside every client's server CPU per row.
#   --peers LIST    comma-separated, from basalt-native,happybase,thriftpy2,java, or
#                   none (default: all); Basalt (Thrift2) always runs. Only the
#                   gateways and compilers the chosen peers need are started.
#                   basalt-native is the same worker with Client::builder().native(..)
#                   bootstrapping from the region servers (admin stays on Thrift2).
#   --baseline-rev REV  also run the worker as built from git revision REV (git archive
#                   into $CARGO_TARGET_DIR/peer-bench/baseline-REV, its own target
#                   dir), as the column basalt@REV, over Thrift2: a before/after of a
#                   change, same HBase, same run.
#   --baseline-native   run that worker over the native RPC instead (column
#                   basalt-native@REV, compared with basalt-native; needs
#                   --peers with basalt-native).
#   --region-servers N  N region servers (default 1): the one in the master's JVM and
#                   N-1 processes of their own (the launcher's regionserver start); the
#                   bench's tables are created afterwards, so their regions spread over
#                   all N. Every region server's CPU counts as the server's.
#   --profile DIR   after the timed rounds, each chosen workload once more through
#                   Basalt under `perf record -g` (DIR/WORKLOAD.perf.data
#                   and a flat top-symbol report WORKLOAD.perf.data.txt);
#                   --perf-freq HZ sets the sampling rate (default 999);
#                   --profile-client NAME profiles basalt-native or basalt@REV instead.
#   --prefix-repeat N   prefix queries per client and round (default 20; their CPU
#                   per row is the total, one query being a tick or two of CPU).
#   e.g. benches/run.sh --rows 100000 --rounds 2 --only gets --peers happybase
# Basalt's full scan is the library's default Scan::new() (growing pages);
# BASALT_BENCH_SCAN=fixed uses pages of 1000 rows, BASALT_BENCH_SCAN=parallel:8
# Scan::parallel_regions(8), e.g. BASALT_BENCH_SCAN=parallel:8 benches/run.sh --only scan --peers java
# BASALT_BENCH_BATCH_ROWS=N sets Basalt's rows per batched write call (Table::with_batch_rows;
# default DEFAULT_BATCH_ROWS), e.g. BASALT_BENCH_BATCH_ROWS=4000 benches/run.sh --only write
# BASALT_BENCH_NATIVE_WRITE_CONCURRENCY=N sets the native route's batch calls in flight
# (Table::with_write_concurrency; the gateway route keeps its default).
# Every result row also carries the servers' CPU seconds (HBase, each gateway; from
# /proc, by the launcher's pid files) and the load average; the report shows them with
# each phase's wall time.
#
# It builds the Basalt worker and bench_salted (cargo, release), installs happybase
# and thriftpy2 into its own virtualenv, compiles the Java worker with javac against
# the launcher's classpath (crates/testkit/launcher/hbase-local.sh classpath), starts a standalone
# HBase with a Thrift2 and a Thrift1 gateway (crates/testkit/launcher/hbase-local.sh), runs
# benches/peers/driver.py, and stops every JVM by pid on exit (killed with TERM or INT,
# it first stops the driver, which kills its workers by pid). Figures go to
# benches/results/latest.md and latest.json (another place: BENCH_OUT=DIR); the
# workers' and HBase's logs to $CARGO_TARGET_DIR/peer-bench/; HBase's data is deleted
# after the run (BENCH_KEEP_HBASE=1 keeps it).
#
# Needs: a JDK 17, Maven, python3 with venv (Debian: apt-get install
# openjdk-17-jdk-headless maven python3-venv), cargo.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
work=$target/peer-bench
out=${BENCH_OUT:-$root/benches/results}
launcher=$root/crates/testkit/launcher/hbase-local.sh
mkdir -p "$work"
log() { echo "[$(date -u +%H:%M:%S)] run.sh: $*" >&2; }

peers=all
baseline_rev=
region_servers=1
previous=
for arg in "$@"; do
  case $arg in
    -h|--help) sed -n '2,60p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --peers=*) peers=${arg#--peers=} ;;
    --baseline-rev=*) baseline_rev=${arg#--baseline-rev=} ;;
    --region-servers=*) region_servers=${arg#--region-servers=} ;;
  esac
  [ "$previous" = --peers ] && peers=$arg
  [ "$previous" = --baseline-rev ] && baseline_rev=$arg
  [ "$previous" = --region-servers ] && region_servers=$arg
  previous=$arg
done
[[ $region_servers =~ ^[1-9]$ ]] || { echo "--region-servers takes 1 to 9, got '$region_servers'" >&2; exit 2; }
wants() { [ "$peers" = all ] || [[ ",$peers," == *",$1,"* ]]; }

# Python peers, in their own virtualenv (versions pinned so that runs compare).
venv=$work/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import happybase, thriftpy2' 2>/dev/null; then
  log "virtualenv $venv: happybase, thriftpy2"
  python3 -m venv "$venv" || { echo "python3 -m venv failed: apt-get install python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'happybase==1.3.0' 'thriftpy2==0.7.1'
fi

log "cargo build --release (worker, bench_salted)"
(cd "$root" && cargo build --release --quiet -p basalt-benches --bin worker \
  && cargo build --release --quiet -p basalt-hbase --example bench_salted)

# The worker as of another revision, built from its own sources (git archive) with
# its own target dir, seeded once from this tree's release dependencies.
baseline_args=()
if [ -n "$baseline_rev" ]; then
  commit=$(git -C "$root" rev-parse --verify --quiet "$baseline_rev^{commit}") \
    || { echo "--baseline-rev $baseline_rev: not a git revision" >&2; exit 2; }
  short=$(git -C "$root" rev-parse --short "$commit")
  base=$work/baseline-$short
  if [ ! -f "$base/src/.complete" ]; then
    log "git archive $short -> $base/src"
    rm -rf "$base/src" && mkdir -p "$base/src"
    git -C "$root" archive "$commit" | tar -x -C "$base/src"
    touch "$base/src/.complete"
  fi
  if [ ! -d "$base/target/release" ] && [ -d "$target/release/deps" ]; then
    mkdir -p "$base/target/release"
    cp -a "$target/release/build" "$target/release/deps" "$target/release/.fingerprint" "$base/target/release/" 2>/dev/null || true
  fi
  log "cargo build --release (worker at $short)"
  (cd "$base/src" && CARGO_TARGET_DIR=$base/target cargo build --release --quiet -p basalt-benches --bin worker)
  baseline_args=(--baseline-worker "$base/target/release/worker" --baseline-label "basalt@$short")
fi

log "resolving HBase's classpath"
"$launcher" classpath > "$work/classpath.txt"
if wants java; then
  log "compiling the Java worker"
  mkdir -p "$work/java"
  javac -nowarn -d "$work/java" -cp "$(cat "$work/classpath.txt")" "$root/benches/peers/java/JavaWorker.java"
fi

hbase_dir=$work/hbase-$$
# Stops HBase by pid, keeps its logs beside the workers' and deletes its data (a
# default run leaves ~4 GB otherwise; BENCH_KEEP_HBASE=1 keeps it).
stop_hbase() {
  "$launcher" stop --dir "$hbase_dir" >/dev/null 2>&1 || { log "could not stop HBase; $hbase_dir kept"; return 0; }
  if [ -d "$hbase_dir/logs" ]; then mkdir -p "$work/logs-$$" && mv "$hbase_dir/logs" "$work/logs-$$/hbase" || true; fi
  [ "${BENCH_KEEP_HBASE:-0}" = 1 ] || rm -rf "$hbase_dir"
}
driver_pid=
# A killed run leaves nothing: the driver (which kills its workers on TERM) and then
# HBase, both by pid.
cleanup() {
  if [ -n "$driver_pid" ] && kill -0 "$driver_pid" 2>/dev/null; then
    kill -TERM "$driver_pid" 2>/dev/null || true
    wait "$driver_pid" 2>/dev/null || true
  fi
  stop_hbase
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log "starting HBase in $hbase_dir"
thrift2=$("$launcher" start --dir "$hbase_dir" --heap 2g --owner-pid $$ | tail -n 1)
# More region servers: processes of their own beside the master's JVM (which serves one);
# the tables the driver creates afterwards are spread over all of them.
for k in $(seq 2 "$region_servers"); do
  log "starting region server rs$k"
  "$launcher" regionserver start --dir "$hbase_dir" --name "rs$k" --heap 2g --owner-pid $$ >/dev/null
done
thrift1=none
if wants happybase; then
  thrift1=$("$launcher" gateway start --dir "$hbase_dir" --name thrift1 --thrift1 --owner-pid $$ | tail -n 1)
fi
native_args=()
if wants basalt-native; then
  # The region servers' host:port (random ports; the launcher's --rpc-host is what
  # they advertise), from HBase's own Admin API through the launcher's region tool.
  answer=$(printf 'servers\nquit\n' | "$launcher" regions --dir "$hbase_dir" 2>"$work/regiontool-$$.log" \
    | grep '^RT ok ' | tail -n 1) || true
  servers=$(tr ' ' '\n' <<<"${answer#RT ok }" | awk -F, 'NF >= 2 { print $1 ":" $2 }' | paste -sd, -)
  [ -n "$servers" ] || { log "no region server found for basalt-native (see $work/regiontool-$$.log)"; exit 1; }
  native_args=(--native-servers "$servers")
fi
log "Thrift2 at $thrift2, Thrift1 at $thrift1, region servers ${servers:-unused}; load average $(cut -d' ' -f1-3 /proc/loadavg)"

"$venv/bin/python" "$root/benches/peers/driver.py" \
  --thrift2 "$thrift2" --thrift1 "$thrift1" --hbase-conf "$hbase_dir/conf" \
  --classpath "$work/classpath.txt" --java-classes "$work/java" \
  --worker "$target/release/worker" --bench-salted "$target/release/examples/bench_salted" \
  --idl "$root/thrift-idl/hbase.thrift" --out "$out" --logs "$work/logs-$$" --hbase-dir "$hbase_dir" \
  "${native_args[@]}" "${baseline_args[@]}" "$@" &
driver_pid=$!
status=0
wait "$driver_pid" || status=$?
driver_pid=
exit "$status"
