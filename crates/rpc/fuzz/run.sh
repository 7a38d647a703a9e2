#!/usr/bin/env bash
# Fuzzes the SASL reply and wrapped-frame readers of the native RPC for SECONDS (default
# 60): arbitrary bytes as a server sends them during and after the SASL exchange, with an RSS limit.
# Works on a stable toolchain; installs what it needs (see .ci/fuzz-target.sh).
#   crates/rpc/fuzz/run.sh 300
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../../.ci/fuzz-target.sh" "$here" sasl "${1:-60}" "the SASL readers of the native RPC"
