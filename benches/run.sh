#!/usr/bin/env bash
# benches/run.sh: Basalt beside the clients its users would otherwise pick, on the
# same freshly loaded data in one run: happybase over HBase's Thrift1 gateway, a
# plain Python Thrift2 client (thriftpy2 + thrift-idl/hbase.thrift), seed 002's
# Socorro-style heapq merge, and the Java native client (hbase-client).
#
#   benches/run.sh [--rows 500000] [--salts 16] [--rounds 3] [--gets 20000]
#                  [--cold-gets 20000] [--tasks 16] [--memory-rows 1000000,4000000|""]
#
# It builds the Basalt worker and bench_salted (cargo, release), installs happybase
# and thriftpy2 into its own virtualenv, compiles the Java worker with javac against
# the launcher's classpath (docker/hbase-local.sh classpath), starts a standalone
# HBase with a Thrift2 and a Thrift1 gateway (docker/hbase-local.sh), runs
# benches/peers/driver.py, and stops every JVM by pid on exit. Figures go to
# benches/results/latest.md and latest.json (another place: BENCH_OUT=DIR); the
# workers' logs to $CARGO_TARGET_DIR/peer-bench/.
#
# Needs: a JDK 17, Maven, python3 with venv (Debian: apt-get install
# openjdk-17-jdk-headless maven python3-venv), cargo.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
work=$target/peer-bench
out=${BENCH_OUT:-$root/benches/results}
launcher=$root/docker/hbase-local.sh
mkdir -p "$work"
log() { echo "[$(date -u +%H:%M:%S)] run.sh: $*" >&2; }

for arg in "$@"; do
  case $arg in
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  esac
done

# Python peers, in their own virtualenv (versions pinned so that runs compare).
venv=$work/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import happybase, thriftpy2' 2>/dev/null; then
  log "virtualenv $venv: happybase, thriftpy2"
  python3 -m venv "$venv" || { echo "python3 -m venv failed: apt-get install python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'happybase==1.3.0' 'thriftpy2==0.7.1'
fi

log "cargo build --release (worker, bench_salted)"
(cd "$root" && cargo build --release --quiet -p basalt-benches --bin worker \
  && cargo build --release --quiet -p basalt --example bench_salted)

log "resolving HBase's classpath and compiling the Java worker"
"$launcher" classpath > "$work/classpath.txt"
mkdir -p "$work/java"
javac -nowarn -d "$work/java" -cp "$(cat "$work/classpath.txt")" "$root/benches/peers/java/JavaWorker.java"

hbase_dir=$work/hbase-$$
stop_hbase() { "$launcher" stop --dir "$hbase_dir" >/dev/null 2>&1 || true; }
trap stop_hbase EXIT
trap 'exit 130' INT TERM
log "starting HBase in $hbase_dir"
thrift2=$("$launcher" start --dir "$hbase_dir" --heap 2g --owner-pid $$ | tail -n 1)
thrift1=$("$launcher" gateway start --dir "$hbase_dir" --name thrift1 --thrift1 --owner-pid $$ | tail -n 1)
log "Thrift2 at $thrift2, Thrift1 at $thrift1"

"$venv/bin/python" "$root/benches/peers/driver.py" \
  --thrift2 "$thrift2" --thrift1 "$thrift1" --hbase-conf "$hbase_dir/conf" \
  --classpath "$work/classpath.txt" --java-classes "$work/java" \
  --worker "$target/release/worker" --bench-salted "$target/release/examples/bench_salted" \
  --idl "$root/thrift-idl/hbase.thrift" --out "$out" --logs "$work/logs-$$" "$@"
