#!/usr/bin/env bash
# Fuzzes the reply reader for SECONDS (default 60): arbitrary bytes as the server's
# reply to every call kind, buffered and framed, binary and compact, with an RSS limit.
# Works on a stable toolchain; installs what it needs (see .ci/fuzz-target.sh).
#   crates/thrift/fuzz/run.sh 300
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../../.ci/fuzz-target.sh" "$here" reply "${1:-60}" "the reply reader"
