#!/usr/bin/env bash
# hbase-local.sh: a real standalone HBase 2.6 plus its Thrift2 gateway, for Basalt's
# tests, examples and CLI, without Docker.
#
#   hbase-local.sh start  [options]   start both JVMs, wait until a real Thrift2 call
#                                      answers, print the Thrift address as the last line
#   hbase-local.sh stop   --dir DIR   stop both JVMs, every extra gateway and the
#                                      watchdogs by pid (TERM, then KILL)
#   hbase-local.sh status --dir DIR   print "up HOST:PORT" (or "up native CONF_DIR" for an HBase
#                                      started with --no-gateway) or "down"; exit 0 when up
#   hbase-local.sh gateway start --dir DIR --name NAME [gateway options]
#                                      start an ADDITIONAL Thrift2 server JVM against the
#                                      HBase running from DIR (its conf and classpath),
#                                      wait until a real call answers, print host:port last
#   hbase-local.sh gateway stop  --dir DIR --name NAME    stop that gateway by pid
#   hbase-local.sh gateway list  --dir DIR   print "NAME HOST:PORT" per running gateway
#   hbase-local.sh regionserver start --dir DIR --name NAME [--heap SIZE] [--timeout S] [--owner-pid PID]
#                                      start an ADDITIONAL region server JVM (a process of its own, unlike
#                                      the local cluster's threads) in the HBase running from DIR, wait
#                                      until it serves, print its server name HOST,PORT,STARTCODE last
#   hbase-local.sh regionserver kill --dir DIR --name NAME   SIGKILL it: a crash; the master notices when
#                                      its ZooKeeper session (6 s) expires and reassigns its regions
#   hbase-local.sh regionserver stop --dir DIR --name NAME   stop it by pid (TERM, then KILL)
#   hbase-local.sh regionserver pause --dir DIR --name NAME  SIGSTOP it: it keeps its sockets but answers
#                                      nothing (a long GC pause); its ZooKeeper session expires
#   hbase-local.sh regionserver resume --dir DIR --name NAME SIGCONT it
#   hbase-local.sh regions --dir DIR  run RegionTool.java (move/split regions on demand) against the
#                                      HBase of DIR: commands on stdin, one answer line each
#                                      (--tool DiffTool|AdminProbe runs that .java the same way)
#   hbase-local.sh classpath          resolve HBase's jars with Maven, print the classpath
#   hbase-local.sh idl                print the Thrift2 IDL shipped in the hbase-thrift jar
#
# Options for start:
#   --dir DIR               run directory (conf, data, logs, pids); default: a new temp dir
#   --thrift-port PORT      Thrift2 port; default: a free port
#   --bind ADDR             address the Thrift2 server listens on; default 127.0.0.1
#   --rpc-host ADDR|auto    address the master and region servers listen on and advertise
#                           to native RPC clients (registry, hbase:meta); default 127.0.0.1;
#                           auto: this machine's first non-loopback IPv4 address (in a
#                           container: its address on Docker's network, which a Linux host
#                           reaches; the image's entrypoint uses it)
#   --framed                framed transport (server's -f); default buffered
#   --compact               compact protocol (server's -c); default binary
#   --scanner-timeout-ms N  server-side scanner expiry; default 60000
#   --idle-timeout-ms N     the Thrift2 server closes connections idle this long; default 60000
#   --heap SIZE             heap of each JVM, e.g. 1g; default 1g
#   --regionservers N       region servers in the master's JVM (HBase's local cluster); default 1
#   --owner-pid PID         stop everything when PID exits (tests pass their own pid)
#   --timeout SECONDS       how long to wait for readiness; default 240
#   --foreground            stay in the foreground and stop both JVMs on TERM/INT (Docker)
#   --no-gateway            no Thrift2 server: only HBase's own RPC; ready when the Java client
#                           answers through DIR/conf; prints DIR/conf (what a native client reads,
#                           as HBASE_CONF_DIR) as the last line instead of an address
#   --secure-rpc            HBase's own RPC secured: Kerberos (every quality of protection) and
#                           TLS beside plaintext, with a KDC and certificates for the run; the
#                           Thrift2 gateway stays plain (see secure_rpc_prepare in secure.sh);
#                           what a client needs is written to DIR/secure-rpc.env
#   --quick-jit             every JVM of the run (extra gateways and region servers too)
#                           compiles with C1 only: about half the CPU to start, somewhat
#                           slower once hot; for test beds, not for benchmarks
#   --site NAME=VALUE       one more hbase-site.xml property (repeatable), written after the
#                           launcher's own, so the same NAME overrides the launcher's value
#                           (a quota switched on, a tiny call queue); NAME is letters, digits,
#                           '.', '_', '-'; VALUE has no < > & quotes or |
#
# Options for gateway start (NAME: letters, digits, '-', '_'):
#   --framed, --compact, --thrift-port PORT, --bind ADDR, --heap SIZE (default 512m),
#   --timeout SECONDS (default 120), --owner-pid PID   as for start
#   --tls, --http, --kerberos auth|auth-int|auth-conf   a secured gateway (see secure.sh)
#   --thrift1               the Thrift1 gateway (org.apache.hadoop.hbase.thrift.ThriftServer,
#                           for happybase baselines) instead of Thrift2; ready when it listens
#
# Environment: BASALT_HBASE_VERSION (Maven version of hbase-server/hbase-thrift),
# BASALT_CACHE_DIR (where the resolved classpath is cached), JAVA (java binary).
#
# Files written in the run directory: conf/hbase-site.xml, logs/master.log,
# logs/thrift.log, master.pid, thrift.pid, watchdog.pid, thrift.addr (native.conf with
# --no-gateway), ready.json; per
# extra gateway: logs/gateway-NAME.log, gateway-NAME.pid, gateway-NAME.addr,
# gateway-NAME.json (with ready_ms), gwatch-NAME.pid (its watchdog, with --owner-pid); per
# extra region server: logs/rs-NAME.log, rs-NAME.pid, rs-NAME.server, rwatch-NAME.pid.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
java_bin=${JAVA:-java}

die() { echo "hbase-local: $*" >&2; exit 1; }
# shellcheck source=secure.sh
. "$here/secure.sh"
log() { echo "hbase-local: $*" >&2; }

require_tools() {
  command -v "$java_bin" >/dev/null 2>&1 || die "java is missing: install a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless)"
  local major
  major=$("$java_bin" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
  [ -n "$major" ] && [ "$major" -ge 11 ] || die "java $major found; HBase 2.6 needs JDK 11 or 17 (Debian: apt-get install openjdk-17-jdk-headless)"
  command -v mvn >/dev/null 2>&1 || die "mvn is missing: install Maven (Debian: apt-get install maven); it fetches HBase's jars from Maven Central"
}

cache_dir() { echo "${BASALT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/basalt}"; }

# Prints HBase's classpath, resolving it with Maven once per version and pom content.
classpath() {
  local version=${BASALT_HBASE_VERSION:-} key cp_file
  key=$( (cat "$here/pom.xml"; echo "$version") | cksum | cut -d' ' -f1)
  cp_file="$(cache_dir)/classpath-$key.txt"
  if [ -s "$cp_file" ] && classpath_complete "$cp_file"; then
    cat "$cp_file"; return
  fi
  mkdir -p "$(cache_dir)"
  local args=(-q -B -f "$here/pom.xml" dependency:build-classpath "-Dmdep.outputFile=$cp_file.tmp")
  [ -n "$version" ] && args+=("-Dhbase.version=$version")
  log "resolving HBase's jars with Maven (first run downloads about 130 MB)"
  if ! mvn "${args[@]}" >"$(cache_dir)/mvn-$key.log" 2>&1; then
    tail -n 30 "$(cache_dir)/mvn-$key.log" >&2
    die "Maven could not resolve HBase's jars (log: $(cache_dir)/mvn-$key.log)"
  fi
  mv "$cp_file.tmp" "$cp_file"
  cat "$cp_file"
}

classpath_complete() {
  local jar
  while IFS= read -r jar; do
    [ -z "$jar" ] || [ -f "$jar" ] || return 1
  done < <(tr ':' '\n' <"$1")
}

# A TCP port nobody listens on, checked against the kernel's socket tables, chosen
# below the kernel's ephemeral range: the JVMs' own port-0 sockets (master, region
# servers, outgoing connections) take ports from that range, and one of them taking
# ZooKeeper's port between our check and ZooKeeper's bind aborts the start.
free_port() {
  local port low=32768 span
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  [[ $low =~ ^[0-9]+$ ]] && [ "$low" -gt 12000 ] || low=32768
  span=$((low - 10000))
  for _ in $(seq 1 200); do
    port=$((10000 + (RANDOM * 32768 + RANDOM) % span))
    if ! is_listening "$port"; then echo "$port"; return; fi
  done
  die "no free TCP port found"
}

is_listening() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" 'NR>1 && $4=="0A" && substr($2, length($2)-4)==p {found=1} END {exit !found}' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# This machine's first non-loopback IPv4 address (in a container: its address on the
# container network).
first_ipv4() {
  local addr
  addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 -E '^[0-9]+(\.[0-9]+){3}$' || true)
  [ -n "$addr" ] || addr=$(getent ahostsv4 "$(hostname)" 2>/dev/null | awk '$1 !~ /^127\./ {print $1; exit}')
  [ -n "$addr" ] || die "--rpc-host auto: this machine has no non-loopback IPv4 address"
  echo "$addr"
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { [ -f "$1/$2.pid" ] && cat "$1/$2.pid" || true; }

jvm_flags() {
  echo "-Xms256m -Xmx$1 -XX:+UseG1GC -Djava.net.preferIPv4Stack=true"
  echo "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true"
  echo "--add-modules jdk.unsupported"
  local m
  for m in java.nio sun.nio.ch java.lang jdk.internal.ref java.lang.reflect java.io java.util java.util.concurrent; do
    echo "--add-opens java.base/$m=ALL-UNNAMED"
  done
  echo "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
  echo "--add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED"
  echo "--add-exports java.base/sun.net.dns=ALL-UNNAMED"
  echo "--add-exports java.base/sun.net.util=ALL-UNNAMED"
}

# Starts a JVM in its own session, so a terminal's signals do not reach it and the
# whole process group can be stopped by its pid.
# With the run directory's `quick-jit` file (start --quick-jit), every JVM of the run,
# extra gateways and region servers included, compiles with C1 only.
spawn_jvm() {
  local dir=$1 name=$2 heap=$3 cp=$4; shift 4
  local jit=""
  [ -f "$dir/quick-jit" ] && jit=-XX:TieredStopAtLevel=1
  # shellcheck disable=SC2046
  setsid "$java_bin" $(jvm_flags "$heap") $jit ${gw_jvm_extra:-} -Dhbase.log.dir="$dir/logs" -cp "${gw_conf:-$dir/conf}:$cp" "$@" \
    >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

# The launcher's Java tools (Probe, SecureProbe, RegionTool, DiffTool, AdminProbe),
# compiled once per source text, classpath and JDK into the cache directory. Prints the
# class directory, or nothing when that fails (no javac beside java, a read-only cache):
# the tools then run in source-file mode, which compiles them in every JVM they start.
# The key and the compile use the classpath's jars only: its directories are a run's conf
# (a new one per test bed), which compiling does not need.
tool_classes() {
  local cp=$1 javac_bin key out tmp jars
  javac_bin="$(dirname "$(readlink -f "$(command -v "$java_bin")")")/javac"
  [ -x "$javac_bin" ] || return 0
  jars=$(tr ':' '\n' <<<"$cp" | grep '\.jar$' | paste -sd: -)
  key=$( (cat "$here"/*.java; echo "$jars"; echo "$javac_bin") | cksum | cut -d' ' -f1)
  out="$(cache_dir)/tools-$key"
  if [ ! -f "$out/.complete" ]; then
    mkdir -p "$(cache_dir)" 2>/dev/null || return 0
    # Classes of other launcher versions or classpaths, unused for a week, go.
    find "$(cache_dir)" -maxdepth 1 -name 'tools-*' -mtime +7 -exec rm -rf {} + 2>/dev/null || true
    tmp=$(mktemp -d "$(cache_dir)/tools-tmp.XXXXXX" 2>/dev/null) || return 0
    if ! "$javac_bin" -nowarn -d "$tmp" -cp "$jars" "$here"/*.java >"$tmp/javac.log" 2>&1; then
      rm -rf "$tmp"
      return 0
    fi
    touch "$tmp/.complete"
    # Runs racing here each compiled a copy: the first one moved in is kept.
    mv -T "$tmp" "$out" 2>/dev/null || rm -rf "$tmp"
  fi
  [ -f "$out/.complete" ] || return 0
  touch "$out" 2>/dev/null || true # in use: not a week unused
  echo "$out"
}

# run_tool CLASSPATH TOOL ARG...: replaces the calling shell with a JVM running one of the
# launcher's tools (call it in a subshell or with `&`), with the JVM options in the
# array `tool_jvm_options` first. The tools are short-lived clients: they run with the
# C1 compiler only and the serial collector, which costs about a fifth of the CPU of a
# JVM's defaults at start; the differential's Java side, which runs for minutes, keeps
# the optimizing compiler.
tool_jvm_options=()
run_tool() {
  local cp=$1 tool=$2 classes
  shift 2
  local jvm=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto)
  [ "$tool" = DiffTool ] && jvm=(-XX:+UseSerialGC -Xshare:auto)
  classes=$(tool_classes "$cp") || classes=""
  if [ -n "$classes" ]; then
    exec "$java_bin" "${tool_jvm_options[@]}" "${jvm[@]}" -cp "$classes:$cp" "$tool" "$@"
  fi
  exec "$java_bin" "${tool_jvm_options[@]}" "${jvm[@]}" -cp "$cp" "$here/$tool.java" "$@"
}

# Runs Probe.java until a real Thrift2 call answers, beside a liveness check of the
# given JVM pids, so a JVM that dies fails the wait at once. Returns 0 when ready.
#   await_ready CLASSPATH LOG HOST PORT FRAMED COMPACT TIMEOUT PID...
await_ready() {
  local cp=$1 log_file=$2 host=$3 port=$4 framed=$5 compact=$6 timeout=$7
  shift 7
  : >"$log_file"
  run_tool "$cp" Probe "$host" "$port" "$framed" "$compact" "$timeout" >"$log_file" 2>&1 &
  local probe=$! pid
  while alive "$probe"; do
    for pid in "$@"; do
      if ! alive "$pid"; then
        kill "$probe" 2>/dev/null || true
        wait "$probe" 2>/dev/null || true
        return 1
      fi
    done
    sleep 0.25
  done
  wait "$probe" 2>/dev/null
}

cmd_start() {
  local dir="" port="" bind=127.0.0.1 framed=false compact=false scanner_ms=60000 idle_ms=60000 heap=1g
  local owner="" timeout=240 foreground=false regionservers=1 rpc_host=127.0.0.1 secure_rpc=false gateway=true
  local site=() quick_jit=false
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --thrift-port) port=$2; shift 2 ;;
      --bind) bind=$2; shift 2 ;;
      --rpc-host) rpc_host=$2; shift 2 ;;
      --framed) framed=true; shift ;;
      --compact) compact=true; shift ;;
      --scanner-timeout-ms) scanner_ms=$2; shift 2 ;;
      --idle-timeout-ms) idle_ms=$2; shift 2 ;;
      --heap) heap=$2; shift 2 ;;
      --regionservers) regionservers=$2; shift 2 ;;
      --owner-pid) owner=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      --foreground) foreground=true; shift ;;
      --secure-rpc) secure_rpc=true; shift ;;
      --no-gateway) gateway=false; shift ;;
      --quick-jit) quick_jit=true; shift ;;
      --site)
        [[ ${2:-} =~ ^[A-Za-z0-9._-]+=[^\<\>\&\"\'\|]*$ ]] || die "--site takes NAME=VALUE (NAME: letters, digits, '.', '_', '-'; VALUE without < > & quotes or |), got '${2:-}'"
        site+=("$2"); shift 2 ;;
      *) die "unknown option for start: $1 (see the header of $self)" ;;
    esac
  done
  [[ $scanner_ms =~ ^[0-9]+$ ]] || die "--scanner-timeout-ms takes milliseconds, got '$scanner_ms'"
  [[ $idle_ms =~ ^[0-9]+$ ]] || die "--idle-timeout-ms takes milliseconds, got '$idle_ms'"
  [[ $timeout =~ ^[0-9]+$ ]] || die "--timeout takes seconds, got '$timeout'"
  [[ $heap =~ ^[0-9]+[mMgG]$ ]] || die "--heap takes a size such as 512m or 1g, got '$heap'"
  [[ $regionservers =~ ^[1-9]$ ]] || die "--regionservers takes 1 to 9, got '$regionservers'"
  [ "$rpc_host" = auto ] && rpc_host=$(first_ipv4)
  [[ $rpc_host =~ ^[A-Za-z0-9.-]+$ ]] || die "--rpc-host takes an address or host name, got '$rpc_host'"
  require_tools
  [ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/tmp}/basalt-hbase.XXXXXX")
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if alive "$(pid_of "$dir" master)" || alive "$(pid_of "$dir" thrift)"; then
    die "an HBase from $dir is already running; stop it first: $self stop --dir $dir"
  fi
  if ! $gateway && [ -n "$port" ]; then die "--thrift-port and --no-gateway contradict each other"; fi
  rm -f "$dir/native.conf"
  local cp zk_port started
  cp=$(classpath)
  [ -n "$port" ] || port=$(free_port)
  [[ $port =~ ^[0-9]+$ ]] || die "--thrift-port takes a number, got '$port'"
  is_listening "$port" && die "port $port is already in use; choose another --thrift-port"
  zk_port=$(free_port)
  while [ "$zk_port" = "$port" ]; do zk_port=$(free_port); done

  rm -rf "$dir/data" "$dir/logs" "$dir/conf" "$dir/server-host" "$dir/quick-jit"
  mkdir -p "$dir/data" "$dir/logs" "$dir/conf"
  if $quick_jit; then touch "$dir/quick-jit"; fi
  # ZooKeeper listens on the loopback address, or on every address when the RPC is
  # advertised elsewhere (a container's address): standalone HBase checks its own
  # ZooKeeper at localhost, and clients reach it where they reach the region servers.
  local zk_bind=127.0.0.1
  [ "$rpc_host" = 127.0.0.1 ] || [ "$rpc_host" = localhost ] || zk_bind=0.0.0.0
  sed -e "s|@DATA_DIR@|$dir/data|g" -e "s|@ZK_PORT@|$zk_port|g" -e "s|@RPC_HOST@|$rpc_host|g" \
      -e "s|@ZK_BIND@|$zk_bind|g" -e "s|@SCANNER_TIMEOUT_MS@|$scanner_ms|g" -e "s|@IDLE_TIMEOUT_MS@|$idle_ms|g" "$here/hbase-site.xml.in" >"$dir/conf/hbase-site.xml"
  if [ ${#site[@]} -gt 0 ]; then add_site_properties "$dir/conf/hbase-site.xml" "${site[@]}"; fi
  cp "$here/log4j2.properties" "$dir/conf/log4j2.properties"
  rm -f "$dir/secure-rpc.env"
  if $secure_rpc; then secure_rpc_prepare "$dir" "$cp" "$rpc_host"; fi

  started=$(date +%s%N)
  # Standalone HBase runs a LocalHBaseCluster: the master and N region servers as threads.
  spawn_jvm "$dir" master "$heap" "$cp" org.apache.hadoop.hbase.master.HMaster "--localRegionServers=$regionservers" start
  local thrift_args=(-b "$bind" -p "$port")
  $framed && thrift_args+=(-f)
  $compact && thrift_args+=(-c)
  if $gateway; then
    spawn_jvm "$dir" thrift "$heap" "$cp" org.apache.hadoop.hbase.thrift2.ThriftServer "${thrift_args[@]}" start
  fi

  if [ -n "$owner" ]; then
    # The watchdog stops both JVMs when the owner goes away, even by SIGKILL.
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -f "$2/master.pid" ]; do sleep 1; done
                    [ -f "$2/master.pid" ] && "$3" stop --dir "$2" >/dev/null 2>&1; exit 0' \
      _ "$owner" "$dir" "$self" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/watchdog.pid"
  fi

  local probe_host=$bind
  [ "$probe_host" = 0.0.0.0 ] && probe_host=127.0.0.1
  if ! $gateway; then
    start_native_only "$dir" "$cp" "$timeout" "$started" "$foreground" "$secure_rpc" "$rpc_host"
    return
  fi
  log "waiting for HBase and Thrift2 on $probe_host:$port (logs: $dir/logs)"
  if ! await_ready "$dir/conf:$cp" "$dir/logs/probe.log" "$probe_host" "$port" "$framed" "$compact" "$timeout" \
      "$(pid_of "$dir" master)" "$(pid_of "$dir" thrift)"; then
    local why
    why=$(tail -n 3 "$dir/logs/probe.log" 2>/dev/null || true)
    alive "$(pid_of "$dir" master)" || why="the HBase master exited: $(grep -m3 -E 'ERROR|Exception' "$dir/logs/master.log" || tail -n 5 "$dir/logs/master.log")"
    alive "$(pid_of "$dir" thrift)" || why="the Thrift2 server exited: $(grep -m3 -E 'ERROR|Exception' "$dir/logs/thrift.log" || tail -n 5 "$dir/logs/thrift.log")"
    cmd_stop --dir "$dir" >/dev/null 2>&1 || true
    die "HBase did not become ready within ${timeout}s: $why (logs kept in $dir/logs)"
  fi
  local ms=$(( ($(date +%s%N) - started) / 1000000 ))
  echo "$probe_host:$port" >"$dir/thrift.addr"
  if $secure_rpc; then secure_rpc_env "$dir" "$rpc_host"; fi
  printf '{"thrift":"%s:%s","framed":%s,"compact":%s,"ready_ms":%s,"master_pid":%s,"thrift_pid":%s,"dir":"%s"}\n' \
    "$probe_host" "$port" "$framed" "$compact" "$ms" "$(pid_of "$dir" master)" "$(pid_of "$dir" thrift)" "$dir" >"$dir/ready.json"
  log "ready in ${ms} ms; stop with: $self stop --dir $dir"

  if $foreground; then
    trap 'cmd_stop --dir "$dir"; exit 0' TERM INT
    echo "$probe_host:$port"
    while alive "$(pid_of "$dir" master)" && alive "$(pid_of "$dir" thrift)"; do sleep 2; done
    log "a JVM exited; stopping the other"
    cmd_stop --dir "$dir"
    exit 1
  fi
  echo "$probe_host:$port"
}

# The end of `start --no-gateway`: waits until HBase's Java client answers through the
# run's conf (Probe.java native), then writes DIR/native.conf and prints DIR/conf.
#   start_native_only DIR CLASSPATH TIMEOUT STARTED_NS FOREGROUND SECURE_RPC RPC_HOST
start_native_only() {
  local dir=$1 cp=$2 timeout=$3 started=$4 foreground=$5 secure_rpc=$6 rpc_host=$7
  log "waiting for HBase's RPC (no gateway; logs: $dir/logs)"
  : >"$dir/logs/probe.log"
  run_tool "$dir/conf:$cp" Probe native "$timeout" >"$dir/logs/probe.log" 2>&1 &
  local probe=$! ready=true
  while alive "$probe"; do
    if ! alive "$(pid_of "$dir" master)"; then
      kill "$probe" 2>/dev/null || true
      ready=false
      break
    fi
    sleep 0.25
  done
  wait "$probe" 2>/dev/null || ready=false
  if ! $ready; then
    local why
    why=$(tail -n 3 "$dir/logs/probe.log" 2>/dev/null || true)
    alive "$(pid_of "$dir" master)" || why="the HBase master exited: $(grep -m3 -E 'ERROR|Exception' "$dir/logs/master.log" || tail -n 5 "$dir/logs/master.log")"
    cmd_stop --dir "$dir" >/dev/null 2>&1 || true
    die "HBase did not become ready within ${timeout}s: $why (logs kept in $dir/logs)"
  fi
  local ms=$(( ($(date +%s%N) - started) / 1000000 ))
  echo "$dir/conf" >"$dir/native.conf"
  if $secure_rpc; then secure_rpc_env "$dir" "$rpc_host"; fi
  printf '{"native_conf":"%s","ready_ms":%s,"master_pid":%s,"dir":"%s"}\n' \
    "$dir/conf" "$ms" "$(pid_of "$dir" master)" "$dir" >"$dir/ready.json"
  log "ready in ${ms} ms (no gateway); stop with: $self stop --dir $dir"
  if $foreground; then
    trap 'cmd_stop --dir "$dir"; exit 0' TERM INT
    echo "$dir/conf"
    while alive "$(pid_of "$dir" master)"; do sleep 2; done
    log "the master exited"
    cmd_stop --dir "$dir"
    exit 1
  fi
  echo "$dir/conf"
}

stop_pid() {
  local pid=$1 name=$2
  alive "$pid" || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do alive "$pid" || return 0; sleep 0.25; done
  log "$name ($pid) ignored TERM for 10 s; killing it"
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do alive "$pid" || return 0; sleep 0.25; done
  die "$name ($pid) is still running after KILL"
}

cmd_stop() {
  local dir=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option for stop: $1" ;;
    esac
  done
  [ -n "$dir" ] || die "stop needs --dir DIR (the run directory given to start)"
  [ -d "$dir" ] || { log "no run directory at $dir; nothing to stop"; return 0; }
  local thrift master watchdog gw
  # Extra gateways first: they are clients of the master like the main Thrift2 server.
  for gw in "$dir"/gateway-*.pid; do
    [ -e "$gw" ] || continue
    gw=${gw##*/gateway-}
    stop_gateway "$dir" "${gw%.pid}"
  done
  for gw in "$dir"/rs-*.pid; do
    [ -e "$gw" ] || continue
    gw=${gw##*/rs-}
    stop_regionserver "$dir" "${gw%.pid}" TERM
  done
  thrift=$(pid_of "$dir" thrift); master=$(pid_of "$dir" master); watchdog=$(pid_of "$dir" watchdog)
  # Thrift first (it holds client connections to the master), then the master, whose
  # process group also holds the embedded ZooKeeper and region server threads.
  stop_pid "$thrift" "Thrift2 server"
  stop_pid "$master" "HBase master"
  secure_stop_kdc "$dir"
  rm -f "$dir/thrift.pid" "$dir/master.pid" "$dir/thrift.addr" "$dir/native.conf" "$dir/ready.json"
  if alive "$watchdog" && [ "$watchdog" != "$PPID" ]; then kill "$watchdog" 2>/dev/null || true; fi
  rm -f "$dir/watchdog.pid"
  log "stopped"
}

valid_name() { [[ ${1:-} =~ ^[A-Za-z0-9_-]+$ ]] || die "gateway --name takes letters, digits, '-' and '_', got '${1:-}'"; }

# Stops one extra gateway and its watchdog; removes its files.
stop_gateway() {
  local dir=$1 name=$2 pid watch
  pid=$(pid_of "$dir" "gateway-$name"); watch=$(pid_of "$dir" "gwatch-$name")
  stop_pid "$pid" "Thrift2 gateway $name"
  secure_stop_gateway "$dir" "$name"
  rm -f "$dir/gateway-$name.pid" "$dir/gateway-$name.addr" "$dir/gateway-$name.json"
  if alive "$watch" && [ "$watch" != "$PPID" ]; then kill "$watch" 2>/dev/null || true; fi
  rm -f "$dir/gwatch-$name.pid"
}

# check_extra_start KIND PIDNAME DIR NAME TIMEOUT HEAP: the checks before an extra
# process (KIND: gateway or regionserver) starts beside the HBase running from DIR;
# prints DIR as an absolute path.
check_extra_start() {
  local kind=$1 pidname=$2 dir=$3 name=$4 timeout=$5 heap=$6
  [ -n "$dir" ] || die "$kind start needs --dir DIR (the run directory of a running HBase)"
  valid_name "$name"
  [[ $timeout =~ ^[0-9]+$ ]] || die "--timeout takes seconds, got '$timeout'"
  [[ $heap =~ ^[0-9]+[mMgG]$ ]] || die "--heap takes a size such as 512m or 1g, got '$heap'"
  [ -d "$dir" ] || die "no run directory at $dir; start HBase first: $self start --dir $dir"
  dir=$(cd "$dir" && pwd)
  alive "$(pid_of "$dir" master)" && [ -f "$dir/conf/hbase-site.xml" ] \
    || die "no HBase is running from $dir; start it first: $self start --dir $dir"
  alive "$(pid_of "$dir" "$pidname")" \
    && die "$kind $name of $dir is already running; stop it first: $self $kind stop --dir $dir --name $name"
  echo "$dir"
}

cmd_gateway_start() {
  local dir="" name="" port="" bind=127.0.0.1 framed=false compact=false heap=512m owner="" timeout=120
  local server=org.apache.hadoop.hbase.thrift2.ThriftServer
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --name) name=$2; shift 2 ;;
      --thrift1) server=org.apache.hadoop.hbase.thrift.ThriftServer; shift ;;
      --thrift-port) port=$2; shift 2 ;;
      --bind) bind=$2; shift 2 ;;
      --framed) framed=true; shift ;;
      --compact) compact=true; shift ;;
      --heap) heap=$2; shift 2 ;;
      --owner-pid) owner=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      --tls) sec_tls=true; shift ;;
      --http) sec_http=true; shift ;;
      --kerberos) sec_qop=${2:-}; shift 2 ;;
      *) die "unknown option for gateway start: $1 (see the header of $self)" ;;
    esac
  done
  dir=$(check_extra_start gateway "gateway-$name" "$dir" "$name" "$timeout" "$heap") || exit 1
  require_tools
  secure_check "$framed" "$compact"
  local cp started backend
  cp=$(classpath)
  [ -n "$port" ] || port=$(free_port)
  [[ $port =~ ^[0-9]+$ ]] || die "--thrift-port takes a number, got '$port'"
  is_listening "$port" && die "port $port is already in use; choose another --thrift-port"

  started=$(date +%s%N)
  secure_prepare "$dir" "$name" "$cp"
  backend=$(secure_backend_port "$port")
  local thrift_args=(-b "$bind" -p "$backend")
  secure_tunnel && thrift_args=(-b 127.0.0.1 -p "$backend")
  $framed && thrift_args+=(-f)
  $compact && thrift_args+=(-c)
  spawn_jvm "$dir" "gateway-$name" "$heap" "$cp" "$server" "${thrift_args[@]}" start
  local pid
  pid=$(pid_of "$dir" "gateway-$name")
  secure_after_spawn "$dir" "$name" "$bind" "$port" "$backend"
  if [ -n "$owner" ]; then
    # Stops this gateway when the owner goes away (even by SIGKILL) or when the
    # gateway's pid file is removed (stopped by other means).
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -f "$2/gateway-$4.pid" ]; do sleep 1; done
                    [ -f "$2/gateway-$4.pid" ] && "$3" gateway stop --dir "$2" --name "$4" >/dev/null 2>&1; exit 0' \
      _ "$owner" "$dir" "$self" "$name" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/gwatch-$name.pid"
  fi

  local probe_host=$bind
  [ "$probe_host" = 0.0.0.0 ] && probe_host=127.0.0.1
  log "waiting for gateway $name on $probe_host:$port (log: $dir/logs/gateway-$name.log)"
  local ready=true
  if [ "$server" = org.apache.hadoop.hbase.thrift.ThriftServer ]; then
    # The probe speaks Thrift2; a Thrift1 gateway is ready once it listens.
    local waited=0
    until is_listening "$port"; do
      alive "$pid" && [ $waited -lt $((timeout * 4)) ] || { ready=false; break; }
      sleep 0.25; waited=$((waited + 1))
    done
  elif secure_enabled; then
    secure_await "$gw_conf:$cp" "$dir/logs/probe-$name.log" "$probe_host" "$port" "$framed" "$compact" "$timeout" \
      "$dir" "$pid" "$(pid_of "$dir" master)" || ready=false
  elif ! await_ready "$dir/conf:$cp" "$dir/logs/probe-$name.log" "$probe_host" "$port" "$framed" "$compact" "$timeout" \
      "$pid" "$(pid_of "$dir" master)"; then
    ready=false
  fi
  if ! $ready; then
    local why
    why=$(tail -n 3 "$dir/logs/probe-$name.log" 2>/dev/null || true)
    alive "$(pid_of "$dir" master)" || why="the HBase master of $dir is not running"
    alive "$pid" || why="the gateway exited: $(grep -m3 -E 'ERROR|Exception' "$dir/logs/gateway-$name.log" || tail -n 5 "$dir/logs/gateway-$name.log")"
    stop_gateway "$dir" "$name" >/dev/null 2>&1 || true
    die "gateway $name did not become ready within ${timeout}s: $why (logs kept in $dir/logs)"
  fi
  local ms=$(( ($(date +%s%N) - started) / 1000000 ))
  echo "$probe_host:$port" >"$dir/gateway-$name.addr"
  printf '{"thrift":"%s:%s","framed":%s,"compact":%s,"ready_ms":%s,"pid":%s%s}\n' \
    "$probe_host" "$port" "$framed" "$compact" "$ms" "$pid" "$(secure_json)" >"$dir/gateway-$name.json"
  secure_env "$dir" "$name"
  log "gateway $name ready in ${ms} ms; stop with: $self gateway stop --dir $dir --name $name"
  echo "$probe_host:$port"
}

cmd_gateway_stop() {
  local dir="" name=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --name) name=$2; shift 2 ;;
      *) die "unknown option for gateway stop: $1" ;;
    esac
  done
  [ -n "$dir" ] || die "gateway stop needs --dir DIR"
  valid_name "$name"
  [ -d "$dir" ] || { log "no run directory at $dir; nothing to stop"; return 0; }
  stop_gateway "$dir" "$name"
  log "gateway $name stopped"
}

cmd_gateway_list() {
  local dir="" gw name
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option for gateway list: $1" ;;
    esac
  done
  [ -n "$dir" ] || die "gateway list needs --dir DIR"
  for gw in "$dir"/gateway-*.pid; do
    [ -e "$gw" ] || continue
    name=${gw##*/gateway-}; name=${name%.pid}
    alive "$(pid_of "$dir" "gateway-$name")" && [ -f "$dir/gateway-$name.addr" ] \
      && echo "$name $(cat "$dir/gateway-$name.addr")"
  done
  return 0
}

cmd_gateway() {
  case ${1:-} in
    start) shift; cmd_gateway_start "$@" ;;
    stop) shift; cmd_gateway_stop "$@" ;;
    list) shift; cmd_gateway_list "$@" ;;
    *) die "gateway takes start, stop or list (see the header of $self)" ;;
  esac
}

# Stops one extra region server (TERM: by stop_pid; KILL: at once, a crash) and its
# watchdog; removes its pid files (the log stays).
stop_regionserver() {
  local dir=$1 name=$2 how=$3 pid watch
  pid=$(pid_of "$dir" "rs-$name"); watch=$(pid_of "$dir" "rwatch-$name")
  if [ "$how" = KILL ]; then
    if alive "$pid"; then
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do alive "$pid" || break; sleep 0.25; done
      alive "$pid" && die "region server $name ($pid) is still running after KILL"
    fi
  else
    stop_pid "$pid" "region server $name"
  fi
  rm -f "$dir/rs-$name.pid" "$dir/rs-$name.server"
  if alive "$watch" && [ "$watch" != "$PPID" ]; then kill "$watch" 2>/dev/null || true; fi
  rm -f "$dir/rwatch-$name.pid"
}

cmd_regionserver_start() {
  local dir="" name="" heap=512m owner="" timeout=120
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --name) name=$2; shift 2 ;;
      --heap) heap=$2; shift 2 ;;
      --owner-pid) owner=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      *) die "unknown option for regionserver start: $1 (see the header of $self)" ;;
    esac
  done
  dir=$(check_extra_start regionserver "rs-$name" "$dir" "$name" "$timeout" "$heap") || exit 1
  require_tools
  local cp pid started line
  cp=$(classpath)
  started=$(date +%s%N)
  # The standalone conf says hbase.cluster.distributed=false, under which HRegionServer
  # refuses to start on its own; this JVM alone runs as a distributed region server
  # against the local cluster's ZooKeeper and root directory. A short ZooKeeper
  # session lets the master notice a killed one within seconds.
  spawn_jvm "$dir" "rs-$name" "$heap" "$cp" org.apache.hadoop.hbase.regionserver.HRegionServer \
    -D hbase.cluster.distributed=true -D zookeeper.session.timeout=6000 start
  pid=$(pid_of "$dir" "rs-$name")
  if [ -n "$owner" ]; then
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -f "$2/rs-$4.pid" ]; do sleep 1; done
                    [ -f "$2/rs-$4.pid" ] && "$3" regionserver stop --dir "$2" --name "$4" >/dev/null 2>&1; exit 0' \
      _ "$owner" "$dir" "$self" "$name" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/rwatch-$name.pid"
  fi
  log "waiting for region server $name (log: $dir/logs/rs-$name.log)"
  local waited=0
  line=""
  while [ -z "$line" ]; do
    if ! alive "$pid" || [ $waited -ge $((timeout * 4)) ]; then
      local why="did not serve within ${timeout}s"
      alive "$pid" || why="exited: $(grep -m3 -E 'ERROR|Exception' "$dir/logs/rs-$name.log" || tail -n 5 "$dir/logs/rs-$name.log")"
      stop_regionserver "$dir" "$name" TERM >/dev/null 2>&1 || true
      die "region server $name $why (log kept in $dir/logs)"
    fi
    sleep 0.25; waited=$((waited + 1))
    line=$(grep -m1 -o 'Serving as [^ ,]*,[0-9]*,[0-9]*' "$dir/logs/rs-$name.log" 2>/dev/null || true)
  done
  echo "${line#Serving as }" >"$dir/rs-$name.server"
  log "region server $name serving as ${line#Serving as } after $(( ($(date +%s%N) - started) / 1000000 )) ms"
  echo "${line#Serving as }"
}

cmd_regionserver() {
  local action=${1:-} dir="" name=""
  case $action in
    start) shift; cmd_regionserver_start "$@"; return ;;
    stop | kill | pause | resume) shift ;;
    *) die "regionserver takes start, stop, kill, pause or resume (see the header of $self)" ;;
  esac
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --name) name=$2; shift 2 ;;
      *) die "unknown option for regionserver $action: $1" ;;
    esac
  done
  [ -n "$dir" ] || die "regionserver $action needs --dir DIR"
  valid_name "$name"
  [ -d "$dir" ] || { log "no run directory at $dir; nothing to stop"; return 0; }
  if [ "$action" = pause ] || [ "$action" = resume ]; then
    local pid signal=STOP
    [ "$action" = resume ] && signal=CONT
    pid=$(pid_of "$dir" "rs-$name")
    alive "$pid" || die "region server $name is not running"
    kill "-$signal" "$pid" || die "kill -$signal $pid failed"
    log "region server $name: SIG$signal"
  elif [ "$action" = kill ]; then
    stop_regionserver "$dir" "$name" KILL
    log "region server $name killed"
  else
    stop_regionserver "$dir" "$name" TERM
    log "region server $name stopped"
  fi
}

# Appends NAME=VALUE properties (checked by cmd_start) before </configuration> of FILE: Hadoop
# reads a file's properties in order, so a later one overrides the template's.
add_site_properties() {
  local file=$1 kv lines=""
  shift
  for kv in "$@"; do
    lines+="  <property><name>${kv%%=*}</name><value>${kv#*=}</value></property>"$'\n'
  done
  local body
  body=$(grep -v '^</configuration>' "$file")
  printf '%s\n  <!-- Extra properties of this run (the launcher'"'"'s site options). -->\n%s</configuration>\n' "$body" "$lines" >"$file"
}

cmd_status() {
  local dir=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option for status: $1" ;;
    esac
  done
  [ -n "$dir" ] || die "status needs --dir DIR"
  if alive "$(pid_of "$dir" master)" && alive "$(pid_of "$dir" thrift)" && [ -f "$dir/thrift.addr" ]; then
    echo "up $(cat "$dir/thrift.addr")"
  elif alive "$(pid_of "$dir" master)" && [ -f "$dir/native.conf" ]; then
    echo "up native $(cat "$dir/native.conf")"
  else
    echo "down"; return 1
  fi
}

# RegionTool (or --tool) with the run directory's conf and HBase's classpath.
cmd_regions() {
  local dir="" tool=RegionTool
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --tool) tool=$2; shift 2; [[ $tool =~ ^(RegionTool|DiffTool|AdminProbe)$ ]] || die "--tool takes RegionTool, DiffTool or AdminProbe" ;;
      *) die "unknown option for regions: $1" ;;
    esac
  done
  [ -n "$dir" ] || die "regions needs --dir DIR (the run directory of a running HBase)"
  alive "$(pid_of "$dir" master)" || die "no HBase is running from $dir"
  require_tools
  local cp
  cp=$(classpath)
  tool_jvm_options=(-Xmx256m)
  run_tool "$dir/conf:$cp" "$tool"
}

cmd_idl() {
  local cp jar entry=org/apache/hadoop/hbase/thrift2/hbase.thrift
  cp=$(classpath)
  jar=$(tr ':' '\n' <<<"$cp" | grep '/hbase-thrift-[^/]*\.jar$' || true)
  [ -n "$jar" ] || die "no hbase-thrift jar on the classpath"
  jar=${jar%%$'\n'*}
  if command -v unzip >/dev/null 2>&1; then
    unzip -p "$jar" "$entry"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())' "$jar" "$entry"
  else
    die "reading $jar needs unzip (apt-get install unzip) or python3"
  fi
}

case ${1:-} in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  gateway) shift; cmd_gateway "$@" ;;
  regionserver) shift; cmd_regionserver "$@" ;;
  regions) shift; cmd_regions "$@" ;;
  classpath) require_tools; classpath ;;
  idl) require_tools; cmd_idl ;;
  *) sed -n '2,70p' "$self" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
