#!/usr/bin/env bash
# The bulk benchmark: `basalt import`, `export` and `count` of N telecom call records
# (seed 003's design: XX_phone_yyyyMMddHHmmss, 6 salt buckets, 6 regions) on a local
# HBase started here, against a plain Python loop with happybase batches (Thrift1)
# importing the same rows in the same run. Peak RSS is measured at N and N/10: the
# import's memory is bounded by its batches in flight, not by the input.
#
# Usage: benches/bulk/run.sh [N]        (default 1000000)
# Needs: java + mvn (for crates/testkit/launcher/hbase-local.sh), python3 with venv, cargo.
# Writes: $CARGO_TARGET_DIR/bench-bulk/ (data, venv, HBase run dir, results.json/.txt)
set -euo pipefail

n=${1:-1000000}
small=$((n / 10))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
work=$target/bench-bulk
mkdir -p "$work"
launcher=$root/crates/testkit/launcher/hbase-local.sh
schema=$root/examples/schemas/calls.toml
batch=${BULK_BATCH:-1000}
conc=${BULK_CONCURRENCY:-4}

echo "== build (release)"
cargo build --release -q -p basalt-hbase-cli --manifest-path "$root/Cargo.toml"
basalt=$target/release/basalt

echo "== virtualenv with happybase ($work/venv)"
if [ ! -x "$work/venv/bin/python" ] || ! "$work/venv/bin/python" -c 'import happybase' 2>/dev/null; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q 'happybase==1.2.0'
fi
py=$work/venv/bin/python

echo "== data: $n and $small call records"
for rows in "$n" "$small"; do
  [ -s "$work/calls-$rows.csv" ] || python3 "$here/gen_calls.py" "$rows" "$work/calls-$rows.csv" 3
done

echo "== HBase + Thrift2 + a Thrift1 gateway (for happybase)"
hb=$work/hbase
"$launcher" stop --dir "$hb" >/dev/null 2>&1 || true
rm -rf "$hb"
cleanup() { "$launcher" stop --dir "$hb" >/dev/null 2>&1 || true; }
trap cleanup EXIT
addr=$("$launcher" start --dir "$hb" --heap "${BULK_HEAP:-2g}" --owner-pid $$ | tail -n 1)
thrift1=$("$launcher" gateway start --dir "$hb" --name thrift1 --thrift1 --owner-pid $$ | tail -n 1)
export BASALT_THRIFT_ADDR=$addr
echo "thrift2 $addr, thrift1 $thrift1"

# The Python salt must equal the schema's: check a few rows against `basalt keys encode`.
head -n 4 "$work/calls-$small.csv" | tail -n 3 | while IFS=, read -r phone calltime _; do
  want=$("$basalt" keys encode -s "$schema" "$phone" "$calltime" | awk '/^key/ {print $2}')
  got=$("$py" -c "import sys; sys.path.insert(0, '$here'); from happybase_import import salt; \
print(f'{salt(\"$phone\", \"$calltime\")}_${phone}_${calltime}')")
  [ "$want" = "$got" ] || { echo "salt mismatch: basalt $want, python $got" >&2; exit 1; }
done

fresh() {
  "$basalt" table drop "$1" --if-exists >/dev/null
  "$basalt" table create "$1" --schema "$schema" >/dev/null
}
results=$work/results.jsonl
: >"$results"
measure() { python3 "$here/measure.py" "$@" | tee -a "$results"; }
cells=(--cell d:callee=callee --cell d:dur=duration:i32 --cell d:kind=kind --cell d:cell=cell)

check_count() {
  local got
  got=$(tail -n 1 "$results" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stdout"].split()[-1])')
  [ "$got" = "$1" ] || { echo "count says $got rows, wanted $1" >&2; exit 1; }
}

for rows in "$small" "$n"; do
  echo "== basalt import, $rows rows"
  fresh bench_calls
  rm -f "$work/calls-$rows.csv.checkpoint" "$work/calls-$rows.csv.rejects"
  measure "import-$rows" "$basalt" import bench_calls "$work/calls-$rows.csv" --schema "$schema" "${cells[@]}" \
    --batch "$batch" --concurrency "$conc" -q
  if [ "$rows" = "$n" ]; then
    # Right after basalt's, on a fresh table of the same design: the baseline.
    echo "== happybase import (Thrift1, batches of $batch), $n rows"
    fresh happy_calls
    measure "happybase-import-$n" "$py" "$here/happybase_import.py" "$thrift1" happy_calls "$work/calls-$n.csv" "$batch"
    measure "happybase-count-$n" "$basalt" count happy_calls --schema "$schema" -q
    check_count "$n"
  fi
  echo "== basalt count, $rows rows"
  measure "count-$rows" "$basalt" count bench_calls --schema "$schema" -q
  check_count "$rows"
  echo "== basalt export (ordered), $rows rows"
  measure "export-$rows" "$basalt" export bench_calls --schema "$schema" -o "$work/export-$rows.csv" -q
  echo "== basalt export (unordered), $rows rows"
  measure "export-unordered-$rows" "$basalt" export bench_calls --schema "$schema" --unordered \
    -o "$work/export-unordered-$rows.csv" -q
done

python3 - "$results" "$n" "$small" <<'PY' | tee "$work/results.txt"
import json, sys
rows = {r["label"]: r for r in map(json.loads, open(sys.argv[1]))}
n, small = int(sys.argv[2]), int(sys.argv[3])
def rate(label, count): return count / rows[label]["wall_s"]
def rss(label): return rows[label]["peak_rss_kib"] / 1024
print(f"{'step':<28}{'rows':>10}{'seconds':>10}{'rows/s':>12}{'client CPU s':>14}{'peak RSS MiB':>14}")
for label, count in [(f"import-{small}", small), (f"import-{n}", n), (f"export-{small}", small),
                     (f"export-{n}", n), (f"export-unordered-{n}", n), (f"count-{n}", n),
                     (f"happybase-import-{n}", n)]:
    r = rows[label]
    print(f"{label:<28}{count:>10}{r['wall_s']:>10.2f}{rate(label, count):>12,.0f}{r['cpu_s']:>14.2f}{rss(label):>14.1f}")
b, h = rows[f"import-{n}"], rows[f"happybase-import-{n}"]
print(f"basalt import / happybase import, rows/s (same rows, same run): {rate(f'import-{n}', n) / rate(f'happybase-import-{n}', n):.2f}x")
print(f"happybase / basalt client CPU seconds for the same import: {h['cpu_s'] / max(b['cpu_s'], 1e-9):.1f}x")
print(f"peak RSS of import at {n} / at {small}: {rss(f'import-{n}') / rss(f'import-{small}'):.2f} "
      f"(export: {rss(f'export-{n}') / rss(f'export-{small}'):.2f})")
PY
