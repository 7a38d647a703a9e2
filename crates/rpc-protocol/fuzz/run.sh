#!/usr/bin/env bash
# Fuzzes the native RPC reply reader for SECONDS (default 60): arbitrary bytes as a region
# server's stream (framing, response header, response, cell block, meta rows), with an RSS limit.
# Works on a stable toolchain; installs what it needs (see .ci/fuzz-target.sh).
#   crates/rpc-protocol/fuzz/run.sh 300
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../../.ci/fuzz-target.sh" "$here" reply "${1:-60}" "the native RPC reply reader"
