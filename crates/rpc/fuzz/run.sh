#!/usr/bin/env bash
# Fuzzes the SASL reply and wrapped-frame readers of the native RPC for SECONDS (default
# 60): arbitrary bytes as a server sends them during and after the SASL exchange, with an RSS limit.
# Works on a stable toolchain (RUSTC_BOOTSTRAP=1); installs cargo-fuzz from crates.io
# when missing; uses AddressSanitizer when the toolchain has its runtime, else none.
#   crates/rpc/fuzz/run.sh 300
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$here/target}"
# libfuzzer-sys compiles libFuzzer: it needs a C++ compiler.
if ! command -v c++ >/dev/null 2>&1; then
    echo "installing g++ (libFuzzer is C++)" >&2
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq g++ >/dev/null
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz from crates.io" >&2
    cargo install cargo-fuzz --locked
fi
corpus="$here/corpus/sasl"
mkdir -p "$corpus" "$here/artifacts/sasl"
# Seed: a few valid exchanges (tokens, a refusal, the fall-back, wrapped frames) so the fuzzer
# starts deep inside the grammar.
if [ -z "$(ls -A "$corpus")" ]; then
    cp "$here"/seeds/* "$corpus"/ 2>/dev/null || true
fi
sanitizer=address
if ! cargo fuzz build -s address sasl >/dev/null 2>&1; then
    echo "AddressSanitizer build failed on this toolchain: fuzzing without a sanitizer" >&2
    sanitizer=none
    cargo fuzz build -s none sasl
fi
log="$here/artifacts/sasl-run.log"
echo "fuzzing for ${seconds}s (sanitizer=$sanitizer); full log: $log" >&2
set +e
cargo fuzz run -s "$sanitizer" sasl "$corpus" -- \
    -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len=65536 \
    -timeout=10 -print_final_stats=1 >"$log" 2>&1
status=$?
set -e
grep -E "^#[0-9]+ +(pulse|DONE)" "$log" | tail -n 3 || true
grep -E "ERROR|SUMMARY|panicked|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
if [ "$status" -ne 0 ]; then
    echo "fuzzing found a failure (exit $status); see $log and $here/artifacts/sasl" >&2
    exit "$status"
fi
echo "fuzzed the SASL readers of the native RPC for ${seconds}s with sanitizer=$sanitizer: no failure"
