#!/usr/bin/env bash
# Fuzzes the reply reader for SECONDS (default 60): arbitrary bytes as the server's
# reply to every call kind, buffered and framed, binary and compact, with an RSS limit.
# Works on a stable toolchain (RUSTC_BOOTSTRAP=1); installs cargo-fuzz from crates.io
# when missing; uses AddressSanitizer when the toolchain has its runtime, else none.
#   crates/thrift/fuzz/run.sh 300
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$here/target}"
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz from crates.io" >&2
    cargo install cargo-fuzz --locked
fi
corpus="$here/corpus/reply"
mkdir -p "$corpus" "$here/artifacts/reply"
# Seed: a few valid replies (binary and compact, buffered and framed) so the fuzzer
# starts deep inside the grammar.
if [ -z "$(ls -A "$corpus")" ]; then
    cp "$here"/seeds/* "$corpus"/ 2>/dev/null || true
fi
sanitizer=address
if ! cargo fuzz build -s address reply >/dev/null 2>&1; then
    echo "AddressSanitizer build failed on this toolchain: fuzzing without a sanitizer" >&2
    sanitizer=none
    cargo fuzz build -s none reply
fi
log="$here/artifacts/reply-run.log"
set +e
cargo fuzz run -s "$sanitizer" reply "$corpus" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 \
    -timeout=10 -print_final_stats=1 2>&1 | tee "$log" | grep -E "^#[0-9]+.*(pulse|DONE)|ERROR|SUMMARY|panicked|stat::" || true
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "fuzzing found a failure (exit $status); see $log and $here/artifacts/reply" >&2
    exit "$status"
fi
echo "fuzzed the reply reader for ${seconds}s with sanitizer=$sanitizer: no failure"
