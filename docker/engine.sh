#!/usr/bin/env bash
# engine.sh: a Docker engine and Basalt's HBase image on a Debian machine, with or
# without a reachable container registry.
#
#   engine.sh up       install Debian's docker.io if no engine is installed, start
#                      dockerd in the background when none answers (its pid is kept in
#                      the state dir), wait until it answers
#   engine.sh images   the base image (pulled, or built locally when no registry
#                      answers), then the project image from docker/Dockerfile
#                      (`engine.sh base` and `engine.sh project` do one each; the
#                      project image's context is crates/testkit/launcher)
#   engine.sh down     stop the dockerd this script started, by pid (TERM, then KILL);
#                      an engine it did not start is left alone
#   engine.sh status   "up" (exit 0) or "down" (exit 1)
#
# The base image: docker/Dockerfile starts FROM eclipse-temurin:17-jdk. When that cannot
# be pulled (no registry reachable), a Debian rootfs is made with
# `debootstrap --variant=minbase` from the host's Debian mirror, imported with
# `docker import`, and given a JDK 17, Maven, unzip and procps from Debian's packages.
# Either way, the host's extra CA certificates (/usr/local/share/ca-certificates), its
# apt proxy settings and its Maven settings (~/.m2/settings.xml: mirrors, proxies) are
# added, so that apt and Maven work inside the build behind a TLS-intercepting proxy.
# Each image is rebuilt only when its inputs change (Docker's layer cache; the Maven
# jars sit in a layer keyed by crates/testkit/launcher/pom.xml).
#
# Environment:
#   BASALT_DOCKER_IMAGE   project image name (default basalt-hbase:latest)
#   BASALT_DOCKER_FROM    the upstream base (default eclipse-temurin:17-jdk)
#   BASALT_DOCKER_STATE   where dockerd's pid and log are kept (default /tmp/basalt-docker)
#   BASALT_DEBIAN_MIRROR  Debian mirror for debootstrap (default: the host's apt source)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The project image's build context: the launcher's files, kept in the crate that embeds them.
launcher=$(cd "$here/../crates/testkit/launcher" && pwd)
image=${BASALT_DOCKER_IMAGE:-basalt-hbase:latest}
upstream=${BASALT_DOCKER_FROM:-eclipse-temurin:17-jdk}
state=${BASALT_DOCKER_STATE:-/tmp/basalt-docker}
base_tag=basalt-jdk:17
rootfs_tag=basalt-debian:bookworm

die() { echo "engine: $*" >&2; exit 1; }
log() { echo "engine: $*" >&2; }
sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
answers() { docker info >/dev/null 2>&1; }
# A process that exists and is not a zombie waiting for its parent to reap it.
alive() {
  [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 1
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [ "${stat:0:1}" != Z ]
}

apt_install() {
  log "installing $* from Debian's packages"
  # Other installs may hold apt's locks: wait for them rather than fail.
  local wait=(-o DPkg::Lock::Timeout=600)
  sudo_ apt-get "${wait[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive sudo_ apt-get "${wait[@]}" install -y -qq --no-install-recommends "$@" >/dev/null
}

cmd_up() {
  if answers; then log "a Docker engine answers"; return 0; fi
  if ! command -v dockerd >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || die "no dockerd and no apt-get: install a Docker engine by hand"
    # docker.io brings dockerd, containerd, runc and a CLI; iptables for its bridge.
    apt_install docker.io iptables
  fi
  command -v docker >/dev/null 2>&1 || die "dockerd is installed but no docker CLI is on PATH"
  mkdir -p "$state"
  local pid
  pid=$(cat "$state/dockerd.pid" 2>/dev/null || true)
  if alive "$pid"; then
    log "dockerd $pid (started earlier by this script) does not answer yet"
  else
    log "starting dockerd (log: $state/dockerd.log)"
    # Own session: a terminal's signals do not reach it; stopped by pid in `down`.
    setsid dockerd >"$state/dockerd.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$state/dockerd.pid"
  fi
  for _ in $(seq 1 120); do
    answers && { log "dockerd $pid answers"; return 0; }
    alive "$pid" || { tail -n 20 "$state/dockerd.log" >&2; rm -f "$state/dockerd.pid"; die "dockerd exited (log: $state/dockerd.log)"; }
    sleep 0.5
  done
  die "dockerd $pid did not answer within 60 s (log: $state/dockerd.log)"
}

cmd_down() {
  local pid
  pid=$(cat "$state/dockerd.pid" 2>/dev/null || true)
  if ! alive "$pid"; then
    rm -f "$state/dockerd.pid"
    log "no dockerd started by this script is running"
    return 0
  fi
  log "stopping dockerd $pid"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 120); do alive "$pid" || break; sleep 0.25; done
  if alive "$pid"; then
    log "dockerd $pid ignored TERM for 30 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do alive "$pid" || break; sleep 0.25; done
  fi
  alive "$pid" && die "dockerd $pid is still running after KILL"
  rm -f "$state/dockerd.pid"
  log "dockerd stopped"
}

cmd_status() {
  if answers; then echo up; else echo down; return 1; fi
}

# The host's Debian mirror (first deb.debian.org-like URI of the main archive).
debian_mirror() {
  if [ -n "${BASALT_DEBIAN_MIRROR:-}" ]; then echo "$BASALT_DEBIAN_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | grep -v '^\s*#' | grep -oE '(https?|file)://[^ ]+' | grep -v -- '-security' | grep -m1 '/debian/\?$' || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

debian_suite() {
  local suite
  suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  echo "${suite:-bookworm}"
}

# A build context with what the host adds to any image: extra CA certificates, apt's
# proxy settings, Maven's settings. Prints nothing; fills $1.
host_additions() {
  local ctx=$1 f
  mkdir -p "$ctx/ca" "$ctx/apt"
  for f in /usr/local/share/ca-certificates/*.crt /usr/local/share/ca-certificates/*/*.crt; do
    [ -f "$f" ] && cp "$f" "$ctx/ca/$(basename "$f")"
  done
  # Only Acquire:: settings (proxies, snapshot validity), not the host's other apt config.
  for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
    [ -f "$f" ] && grep -h '^\s*Acquire::' "$f" >>"$ctx/apt/99host" 2>/dev/null || true
  done
  touch "$ctx/apt/99host"
  if [ -f "$HOME/.m2/settings.xml" ]; then cp "$HOME/.m2/settings.xml" "$ctx/settings.xml"; else : >"$ctx/settings.xml"; fi
}

# The Debian rootfs, imported as $rootfs_tag.
build_rootfs() {
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  local mirror suite dir
  mirror=$(debian_mirror); suite=$(debian_suite)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/basalt-rootfs.XXXXXX")
  local started=$SECONDS
  log "debootstrap --variant=minbase $suite from $mirror"
  if ! sudo_ debootstrap --variant=minbase "$suite" "$dir" "$mirror" >"$state/debootstrap.log" 2>&1; then
    tail -n 20 "$state/debootstrap.log" >&2
    sudo_ rm -rf "$dir"
    die "debootstrap failed (log: $state/debootstrap.log)"
  fi
  # The host's Debian sources (updates and security too), not third-party ones.
  {
    echo "deb $mirror $suite main"
    echo "deb $mirror $suite-updates main"
    local security
    security=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | grep -v '^\s*#' | grep -oE 'https?://[^ ]+' | grep -m1 -- '-security' || true)
    [ -n "$security" ] && echo "deb $security $suite-security main"
  } | sudo_ tee "$dir/etc/apt/sources.list" >/dev/null
  sudo_ rm -rf "$dir/var/cache/apt/archives"/*.deb "$dir/var/lib/apt/lists"/*
  log "docker import as $rootfs_tag"
  sudo_ tar -C "$dir" -c . | docker import - "$rootfs_tag" >/dev/null
  sudo_ rm -rf "$dir"
  log "Debian rootfs imported in $((SECONDS - started)) s"
}

# The base image $base_tag: upstream (pulled) or the local Debian rootfs, plus the
# host's additions, with a JDK 17, Maven, unzip and procps.
cmd_base() {
  local from=$upstream ctx
  if docker image inspect "$upstream" >/dev/null 2>&1 || timeout 60 docker pull -q "$upstream" >/dev/null 2>&1; then
    log "base: $upstream"
  else
    log "base: $upstream cannot be pulled (no registry reachable); building a Debian base locally"
    docker image inspect "$rootfs_tag" >/dev/null 2>&1 || build_rootfs
    from=$rootfs_tag
  fi
  ctx=$(mktemp -d "${TMPDIR:-/tmp}/basalt-base.XXXXXX")
  host_additions "$ctx"
  cat >"$ctx/Dockerfile" <<EOF
FROM $from
COPY apt/99host /etc/apt/apt.conf.d/99host
COPY ca/ /usr/local/share/ca-certificates/
RUN export DEBIAN_FRONTEND=noninteractive \\
 && apt-get update -qq \\
 && { command -v javac >/dev/null || apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless; } \\
 && apt-get install -y -qq --no-install-recommends ca-certificates maven unzip procps \\
 && update-ca-certificates \\
 && rm -rf /var/lib/apt/lists/*
# An upstream JDK keeps its own trust store: add the extra CAs to it too.
RUN for c in /usr/local/share/ca-certificates/*.crt; do [ -f "\$c" ] || continue; \\
      keytool -importcert -cacerts -noprompt -storepass changeit -alias "basalt-\$(basename "\$c" .crt)" -file "\$c" >/dev/null 2>&1 || true; \\
    done
COPY settings.xml /root/.m2/settings.xml
RUN [ -s /root/.m2/settings.xml ] || rm /root/.m2/settings.xml
EOF
  log "building $base_tag from $from"
  docker build --network host -t "$base_tag" "$ctx" >"$state/build-base.log" 2>&1 || { tail -n 30 "$state/build-base.log" >&2; rm -rf "$ctx"; die "building $base_tag failed (log: $state/build-base.log)"; }
  rm -rf "$ctx"
}

cmd_project() {
  docker image inspect "$base_tag" >/dev/null 2>&1 || die "no $base_tag: run $0 images"
  log "building $image from $here/Dockerfile, context $launcher (base $base_tag)"
  docker build --network host --build-arg "BASE=$base_tag" -t "$image" -f "$here/Dockerfile" "$launcher" >"$state/build-project.log" 2>&1 || { tail -n 30 "$state/build-project.log" >&2; die "building $image failed (log: $state/build-project.log)"; }
  log "built $image"
}

cmd_images() {
  answers || die "no Docker engine answers: run $0 up"
  cmd_base
  cmd_project
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  images) cmd_images ;;
  base) answers || die "no Docker engine answers: run $0 up"; cmd_base ;;
  project) answers || die "no Docker engine answers: run $0 up"; cmd_project ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
