#!/usr/bin/env bash
# Runs one cargo-fuzz target of a fuzz crate for SECONDS, with an RSS limit; the fuzz
# crates' run.sh scripts call it. Works on a stable toolchain (RUSTC_BOOTSTRAP=1);
# installs g++ (libFuzzer is C++) and cargo-fuzz from crates.io when missing; uses
# AddressSanitizer when the toolchain has its runtime, else none. The corpus starts from
# the crate's seeds/. FUZZ_TARGET_DIR moves the (large) sanitizer build elsewhere.
#   .ci/fuzz-target.sh FUZZ_CRATE_DIR TARGET SECONDS "WHAT IS FUZZED"
#   .ci/fuzz-target.sh --tools     (only installs g++ and cargo-fuzz when missing: run it
#                                   once before fuzzing several targets at the same time)
set -euo pipefail

install_tools() {
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
}

if [ $# -eq 1 ] && [ "$1" = --tools ]; then
    install_tools
    exit 0
fi
if [ $# -ne 4 ]; then
    echo "usage: $0 FUZZ_CRATE_DIR TARGET SECONDS 'what is fuzzed'  (or: $0 --tools)" >&2
    exit 2
fi
here="$(cd "$1" && pwd)" target=$2 seconds=$3 what=$4
cd "$here"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$here/target}"
install_tools
corpus="$here/corpus/$target"
mkdir -p "$corpus" "$here/artifacts/$target"
# Seeds: a few valid inputs, so the fuzzer starts deep inside the grammar.
if [ -z "$(ls -A "$corpus")" ]; then
    cp "$here"/seeds/* "$corpus"/ 2>/dev/null || true
fi
sanitizer=address
if ! cargo fuzz build -s address "$target" >/dev/null 2>&1; then
    echo "AddressSanitizer build failed on this toolchain: fuzzing without a sanitizer" >&2
    sanitizer=none
    cargo fuzz build -s none "$target"
fi
log="$here/artifacts/$target-run.log"
echo "fuzzing for ${seconds}s (sanitizer=$sanitizer); full log: $log" >&2
set +e
cargo fuzz run -s "$sanitizer" "$target" "$corpus" -- \
    -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len=65536 \
    -timeout=10 -print_final_stats=1 >"$log" 2>&1
status=$?
set -e
grep -E "^#[0-9]+ +(pulse|DONE)" "$log" | tail -n 3 || true
grep -E "ERROR|SUMMARY|panicked|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
if [ "$status" -ne 0 ]; then
    echo "fuzzing found a failure (exit $status); see $log and $here/artifacts/$target" >&2
    exit "$status"
fi
echo "fuzzed $what for ${seconds}s with sanitizer=$sanitizer: no failure"
