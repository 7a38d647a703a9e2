#!/usr/bin/env bash
# The Docker route of CI: a Docker engine (installed from Debian's packages and started
# when none answers), the base and project images (built locally when no registry is
# reachable), then the whole integration suite against HBase in a container started by
# testcontainers. Everything this script started is stopped at the end, also on failure:
# the containers of the suite, and dockerd if it was not running before. Prints the time
# of each step and the number of tests run.
#
#   .ci/docker-route.sh                 everything
#   .ci/docker-route.sh --images-only   engine and images only (e.g. in the background
#                                       while the native route runs; a later full run
#                                       finds them in Docker's cache)
set -euo pipefail
cd "$(dirname "$0")/.."

label=dev.basalt.testkit.owner-pid
engine_was_up=false
docker/engine.sh status >/dev/null 2>&1 && engine_was_up=true
declare -a timings=()

# step NAME COMMAND...: runs and times one step; returns the command's status.
step() {
  local name=$1 start rc=0
  shift
  echo "docker-route: $name"
  start=$(date +%s%N)
  "$@" || rc=$?
  timings+=("$(printf '%-28s %6.1f s' "$name" "$(( ($(date +%s%N) - start) / 1000000 ))e-3")")
  return "$rc"
}

# Containers of the suite whose test process is gone (it removes its own, and a
# watchdog removes them if it is killed; this is the last net).
remove_orphans() {
  local id owner
  docker/engine.sh status >/dev/null 2>&1 || return 0
  for id in $(docker ps -aq --filter "label=$label"); do
    owner=$(docker inspect --format "{{index .Config.Labels \"$label\"}}" "$id" 2>/dev/null || true)
    if [ -z "$owner" ] || ! kill -0 "$owner" 2>/dev/null; then
      echo "docker-route: removing container $id left by process $owner" >&2
      docker rm -f "$id" >/dev/null 2>&1 || true
    fi
  done
}

cleanup() {
  local rc=$?
  remove_orphans
  if ! $engine_was_up; then docker/engine.sh down || rc=1; fi
  if [ ${#timings[@]} -gt 0 ]; then
    echo "docker-route: timings"
    printf '  %s\n' "${timings[@]}"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "engine (install, start)" docker/engine.sh up
step "base image" docker/engine.sh base
step "project image" docker/engine.sh project
if [ "${1:-}" = --images-only ]; then
  echo "docker-route: images ready"
  exit 0
fi
step "test build (docker feature)" cargo test -p basalt-integration --features docker --no-run

log=$(mktemp "${TMPDIR:-/tmp}/basalt-docker-suite.XXXXXX")
# Every test runs against the container: two region servers and the region tool, and
# the secured gateways (stunnel, HTTP(S), a per-run KDC published to the client on the
# host) run in it as with the native launcher. The exceptions are tests that do not use
# the route's test bed (a test bed of their own launched natively on every route, or a
# hostile server in the test process): the native route has already run exactly them,
# so they are listed as ignored here, each with why.
suite() {
  BASALT_TESTKIT_DOCKER=1 cargo test -p basalt-integration --features docker 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}
status=0
step "suite (container + tests)" suite || status=$?
ready=$(sed -n 's/^HBase + Thrift2 ready at .* in \([0-9.]*\) s$/\1/p' "$log" | tail -n1)
# Totals over the suite's test binaries (libtest's "test result:" lines).
result=$(awk '/^test result:/ {for (i = 1; i <= NF; i++) {if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) g += $i}}
              END {printf "%d tests passed, %d failed, %d ignored", p, f, g}' "$log")
rm -f "$log"
echo "docker-route: container ready in ${ready:-?} s; $result"
[ "$status" -eq 0 ] || { echo "docker-route: the integration suite failed against the container" >&2; exit "$status"; }

left=$(docker ps -aq --filter "label=$label")
if [ -n "$left" ]; then
  for id in $left; do
    owner=$(docker inspect --format "{{index .Config.Labels \"$label\"}}" "$id" 2>/dev/null || true)
    kill -0 "$owner" 2>/dev/null && continue # another run's, still going
    echo "docker-route: container $id outlived its test run" >&2
    exit 1
  done
fi
echo "docker-route: passed"
