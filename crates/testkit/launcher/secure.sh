# secure.sh: secured Thrift2 gateways for hbase-local.sh (sourced by it, not run alone).
#
#   hbase-local.sh gateway start --dir DIR --name NAME [--tls] [--http] [--kerberos QOP]
#
#   --tls            TLS with a CA and server certificate made for the run (PKI in DIR/pki:
#                    ca.crt, server.crt/.key for CN=localhost with SANs localhost and
#                    127.0.0.1, other-ca.crt: an unrelated CA for negative tests).
#                    With --http: HTTPS from HBase's own Jetty (hbase.thrift.ssl.*).
#                    Without: HBase 2.6's socket Thrift server has no TLS of its own, so,
#                    as in production, a TLS terminator (stunnel, a real TLS server) listens
#                    on the public port and forwards to the gateway on a private port.
#   --http           Thrift over HTTP (hbase.regionserver.thrift.http; binary protocol).
#   --kerberos QOP   Kerberos with quality of protection auth | auth-int | auth-conf
#                    (hbase.thrift.security.qop): SASL GSSAPI on the socket transport
#                    (buffered only: HBase refuses SASL with framed), SPNEGO with --http.
#                    A real MIT KDC is started for the run directory (DIR/krb5, stopped
#                    with the HBase); principals hbase/HOST and HTTP/HOST (the gateway,
#                    HOST as the server sees itself) and basalt (the client), keytabs
#                    hbase.keytab and client.keytab, and a ticket cache for basalt.
#
# Only the gateway is secured: it runs with its own conf dir (DIR/conf-NAME) that turns
# on Kerberos for the gateway, and talks to the simple-auth standalone HBase behind it
# with hbase.ipc.client.fallback-to-simple-auth-allowed.
#
# What a client needs is written to DIR/gateway-NAME.env (KEY=VALUE lines): TLS, HTTP,
# QOP, CA, OTHER_CA, TLS_HOST, KRB5_CONFIG, KRB5CCNAME, REALM, CLIENT_PRINCIPAL,
# CLIENT_KEYTAB, SERVICE, SERVER_HOST.
#
# Environment: BASALT_KDC_PORT, the KDC's port (default: a free one; the Docker route
# sets it so that the port can be published to the client on the host).
#
# Debian packages: openssl, util-linux (flock), stunnel4 (--tls without --http), krb5-kdc krb5-admin-server
# krb5-user (--kerberos); the JDK's keytool. Missing ones are installed with apt-get when
# the launcher runs as root (secure_install), as HBase's jars are fetched with Maven;
# otherwise the launcher fails naming them.

sec_realm=BASALT.TEST
sec_store_pass=basalt-test

# Per-gateway state, set by the option parser of cmd_gateway_start.
sec_tls=false
sec_http=false
sec_qop=""

secure_enabled() { $sec_tls || $sec_http || [ -n "$sec_qop" ]; }

# The socket transport with TLS is served through stunnel in front of the gateway.
secure_tunnel() { $sec_tls && ! $sec_http; }

secure_check() {
  local framed=$1 compact=$2
  case $sec_qop in
    ""|auth|auth-int|auth-conf) ;;
    *) die "--kerberos takes a quality of protection: auth, auth-int or auth-conf; got '$sec_qop'" ;;
  esac
  if [ -n "$sec_qop" ] && ! $sec_http && $framed; then
    die "--kerberos needs the buffered transport: HBase's Thrift server refuses SASL with framed"
  fi
  if $sec_http && { $framed || $compact; }; then
    die "--http serves the binary protocol over HTTP: drop --framed/--compact"
  fi
  if [ "$sec_qop" = auth-conf ] && $sec_http && ! $sec_tls; then
    die "--kerberos auth-conf with --http needs --tls (HBase refuses privacy over plain HTTP)"
  fi
  local missing
  missing=$(secure_missing_packages)
  if [ -n "$missing" ]; then
    secure_install $missing
    missing=$(secure_missing_packages)
    [ -z "$missing" ] || die "still missing after installing them: $missing"
  fi
  return 0
}

# Whether a program is on PATH or in /usr/sbin (not on a non-root PATH).
have_tool() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }

# The Debian packages whose programs this gateway's mode needs and this machine lacks.
secure_missing_packages() {
  local pkgs=()
  if $sec_tls && ! have_tool openssl; then pkgs+=(openssl); fi
  if secure_tunnel && ! have_tool stunnel4 && ! have_tool stunnel; then pkgs+=(stunnel4); fi
  if [ -n "$sec_qop" ]; then
    { have_tool krb5kdc && have_tool kdb5_util; } || pkgs+=(krb5-kdc)
    have_tool kadmin.local || pkgs+=(krb5-admin-server)
    have_tool kinit || pkgs+=(krb5-user)
  fi
  echo "${pkgs[*]}"
}

# Installs Debian packages, as the launcher fetches HBase's jars: with apt-get when
# running as root (after apt-get update), one install at a time on this machine, with
# no service started by the packages (a policy-rc.d for the install when there is none);
# otherwise fails naming the packages to install.
secure_install() {
  local why="this secured gateway needs programs from: $*"
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    die "$why; install them (Debian/Ubuntu: apt-get install $*)"
  fi
  mkdir -p "$(cache_dir)"
  (
    flock 8
    local still=() p
    # Another launcher may have installed them while this one waited.
    for p in $(secure_missing_packages); do still+=("$p"); done
    [ ${#still[@]} -gt 0 ] || exit 0
    log "$why; installing ${still[*]} (apt-get)"
    local policy=/usr/sbin/policy-rc.d ours=false
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && ours=true
    fi
    local rc=0 wait=(-o DPkg::Lock::Timeout=600)
    {
      apt-get "${wait[@]}" update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq --no-install-recommends "${still[@]}"
    } >"$(cache_dir)/apt-install.log" 2>&1 || rc=$?
    if $ours; then rm -f "$policy"; fi
    if [ "$rc" -ne 0 ]; then
      tail -n 15 "$(cache_dir)/apt-install.log" >&2
      die "installing ${still[*]} failed (log: $(cache_dir)/apt-install.log)"
    fi
    log "installed ${still[*]}"
  ) 8>"$(cache_dir)/apt-install.lock" || exit 1
}

krb_tool() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

# A CA, a server certificate for localhost/127.0.0.1 (and the server's host name, when
# that is another name: SPNEGO over HTTPS is asked of that name) signed by it, a PKCS12
# key store (Jetty) and trust store (the probe), and an unrelated CA. Made once per run
# directory.
secure_pki() {
  local pki=$1/pki host san="DNS:localhost,IP:127.0.0.1"
  [ -s "$pki/server.p12" ] && return 0
  host=$(secure_host_name "$1" "$2") || exit 1
  [ "$host" = localhost ] || san+=",DNS:$host"
  rm -rf "$pki"; mkdir -p "$pki"
  (
    cd "$pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 7 \
      -subj "/CN=Basalt test CA $$" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.crt -days 7 \
      -subj "/CN=Basalt unrelated CA $$" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost"
    printf '%s\n' "subjectAltName=$san" "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
      -days 7 -extfile server.ext
    openssl pkcs12 -export -in server.crt -inkey server.key -certfile ca.crt -name server \
      -out server.p12 -passout "pass:$sec_store_pass"
    keytool -importcert -noprompt -storetype PKCS12 -keystore trust.p12 -storepass "$sec_store_pass" \
      -alias ca -file ca.crt
  ) >"$1/logs/pki.log" 2>&1 || die "making the run's certificates failed (log: $1/logs/pki.log)"
}

# The host name the Thrift server puts in its principal (_HOST), as HBase computes it
# (learned once per run directory).
secure_host_name() {
  local dir=$1 cp=$2
  if [ ! -s "$dir/server-host" ]; then
    (run_tool "$dir/conf:$cp" SecureProbe hostname) >"$dir/server-host.tmp" 2>"$dir/logs/hostname.log" \
      || die "could not learn the server's host name (log: $dir/logs/hostname.log)"
    grep -qE '^[A-Za-z0-9._-]+$' "$dir/server-host.tmp" || die "unexpected server host name '$(cat "$dir/server-host.tmp")'"
    mv "$dir/server-host.tmp" "$dir/server-host"
  fi
  cat "$dir/server-host"
}

secure_server_host() {
  local dir=$1 cp=$2
  [ -s "$dir/krb5/server-host" ] || secure_host_name "$dir" "$cp" >"$dir/krb5/server-host"
  cat "$dir/krb5/server-host"
}

# Starts the run's KDC (once per run directory) with its principals and keytabs.
secure_kdc() {
  local dir=$1 cp=$2 krb=$1/krb5 port host
  if alive "$(pid_of "$dir" kdc)"; then return 0; fi
  rm -rf "$krb"; mkdir -p "$krb"
  # A fixed port when asked (in a container, so that it can be published); else a free one.
  port=${BASALT_KDC_PORT:-}
  if [ -n "$port" ]; then
    [[ $port =~ ^[0-9]+$ ]] || die "BASALT_KDC_PORT takes a port number, got '$port'"
    is_listening "$port" && die "BASALT_KDC_PORT=$port is already in use"
  else
    port=$(free_port)
  fi
  cat >"$krb/kdc.conf" <<EOF
[kdcdefaults]
 kdc_ports = $port
 kdc_tcp_ports = $port
[realms]
 $sec_realm = {
  database_name = $krb/principal
  key_stash_file = $krb/stash
  acl_file = $krb/kadm5.acl
  max_life = 10h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:$dir/logs/kdc.log
EOF
  cat >"$krb/krb5.conf" <<EOF
[libdefaults]
 default_realm = $sec_realm
 dns_lookup_kdc = false
 dns_lookup_realm = false
 dns_canonicalize_hostname = false
 rdns = false
 udp_preference_limit = 1
 ticket_lifetime = 10h
[realms]
 $sec_realm = {
  kdc = 127.0.0.1:$port
 }
[domain_realm]
 localhost = $sec_realm
 127.0.0.1 = $sec_realm
EOF
  : >"$krb/kadm5.acl"
  (
    export KRB5_CONFIG=$krb/krb5.conf KRB5_KDC_PROFILE=$krb/kdc.conf
    "$(krb_tool kdb5_util)" create -s -r "$sec_realm" -P "kdc-$RANDOM$RANDOM$RANDOM" >"$dir/logs/kdb5_util.log" 2>&1
  ) || die "creating the KDC database failed (log: $dir/logs/kdb5_util.log)"
  KRB5_CONFIG=$krb/krb5.conf KRB5_KDC_PROFILE=$krb/kdc.conf \
    setsid "$(krb_tool krb5kdc)" -n -r "$sec_realm" >"$dir/logs/krb5kdc.out" 2>&1 </dev/null 9>&- &
  echo $! >"$dir/kdc.pid"
  for _ in $(seq 1 40); do is_listening "$port" && break; alive "$(pid_of "$dir" kdc)" || break; sleep 0.25; done
  is_listening "$port" || die "the KDC did not start (logs: $dir/logs/krb5kdc.out, $dir/logs/kdc.log)"
  host=$(secure_server_host "$dir" "$cp")
  echo "$host" | grep -qE '^[A-Za-z0-9._-]+$' || die "unexpected server host name '$host'"
  local q="addprinc -randkey hbase/$host@$sec_realm
addprinc -randkey HTTP/$host@$sec_realm
addprinc -randkey hbase/127.0.0.1@$sec_realm
addprinc -randkey basalt@$sec_realm
ktadd -k $krb/hbase.keytab hbase/$host@$sec_realm HTTP/$host@$sec_realm hbase/127.0.0.1@$sec_realm
ktadd -k $krb/client.keytab basalt@$sec_realm"
  # The gateway reaches the master at 127.0.0.1, whose name is localhost: when the
  # server's host name is another (in a container), that principal is needed too.
  [ "$host" = localhost ] || q+="
addprinc -randkey hbase/localhost@$sec_realm"
  (
    export KRB5_CONFIG=$krb/krb5.conf KRB5_KDC_PROFILE=$krb/kdc.conf
    while IFS= read -r line; do "$(krb_tool kadmin.local)" -q "$line" || exit 1; done <<<"$q"
    kinit -kt "$krb/client.keytab" -c "FILE:$krb/ccache" "basalt@$sec_realm"
  ) >"$dir/logs/kadmin.log" 2>&1 || die "making principals and keytabs failed (log: $dir/logs/kadmin.log)"
  echo "$port" >"$krb/port"
}

secure_stop_kdc() {
  local dir=$1
  stop_pid "$(pid_of "$dir" kdc)" "KDC"
  rm -f "$dir/kdc.pid"
}

# Writes DIR/conf-NAME (the gateway's own hbase-site.xml) and sets gw_conf and
# gw_jvm_extra for spawn_jvm.
secure_prepare() {
  local dir=$1 name=$2 cp=$3 conf=$1/conf-$2 props=""
  gw_conf=$dir/conf; gw_jvm_extra=""
  secure_enabled || return 0
  # Gateways may be started in parallel: one makes the run's PKI and KDC, the others wait.
  exec 9>"$dir/secure.lock"
  flock 9
  if $sec_tls; then secure_pki "$dir" "$cp"; fi
  if [ -n "$sec_qop" ]; then secure_kdc "$dir" "$cp"; fi
  flock -u 9
  exec 9>&-
  rm -rf "$conf"; mkdir -p "$conf"
  cp "$dir/conf/log4j2.properties" "$conf/"
  prop() { props+="  <property><name>$1</name><value>$2</value></property>"$'\n'; }
  if $sec_http; then
    prop hbase.regionserver.thrift.http true
    if $sec_tls; then
      prop hbase.thrift.ssl.enabled true
      prop hbase.thrift.ssl.keystore.store "$dir/pki/server.p12"
      prop hbase.thrift.ssl.keystore.type PKCS12
      prop hbase.thrift.ssl.keystore.password "$sec_store_pass"
      prop hbase.thrift.ssl.keystore.keypassword "$sec_store_pass"
    fi
  fi
  if [ -n "$sec_qop" ]; then
    local krb=$dir/krb5
    prop hadoop.security.authentication kerberos
    prop hbase.security.authentication kerberos
    prop hbase.thrift.security.qop "$sec_qop"
    prop hbase.thrift.kerberos.principal "hbase/_HOST@$sec_realm"
    prop hbase.thrift.keytab.file "$krb/hbase.keytab"
    prop hbase.thrift.spnego.principal "HTTP/_HOST@$sec_realm"
    prop hbase.thrift.spnego.keytab.file "$krb/hbase.keytab"
    prop hbase.master.kerberos.principal "hbase/_HOST@$sec_realm"
    prop hbase.regionserver.kerberos.principal "hbase/_HOST@$sec_realm"
    # The standalone HBase behind the gateway keeps simple authentication.
    prop hbase.ipc.client.fallback-to-simple-auth-allowed true
    gw_jvm_extra="-Djava.security.krb5.conf=$krb/krb5.conf"
  fi
  awk -v extra="$props" '/<\/configuration>/ { printf "%s", extra } { print }' \
    "$dir/conf/hbase-site.xml" >"$conf/hbase-site.xml"
  if [ -n "$sec_qop" ]; then
    # Hadoop's UserGroupInformation reads core-site.xml, not hbase-site.xml.
    printf '%s\n' '<?xml version="1.0"?>' '<configuration>' \
      '  <property><name>hadoop.security.authentication</name><value>kerberos</value></property>' \
      '</configuration>' >"$conf/core-site.xml"
  fi
  gw_conf=$conf
}

# The port the gateway JVM listens on: a private one behind stunnel, else the public one.
secure_backend_port() {
  if secure_enabled && secure_tunnel; then free_port; else echo "$1"; fi
}

# Starts stunnel on PUBLIC (bind address BIND) forwarding to the gateway on BACKEND.
secure_after_spawn() {
  local dir=$1 name=$2 bind=$3 public=$4 backend=$5 bin
  secure_enabled && secure_tunnel || return 0
  bin=$(command -v stunnel4 || command -v stunnel)
  cat >"$dir/conf-$name/stunnel.conf" <<EOF
foreground = yes
pid =
output = $dir/logs/stunnel-$name.log
debug = notice
[thrift]
accept = $bind:$public
connect = 127.0.0.1:$backend
cert = $dir/pki/server.crt
key = $dir/pki/server.key
EOF
  setsid "$bin" "$dir/conf-$name/stunnel.conf" >>"$dir/logs/stunnel-$name.log" 2>&1 </dev/null &
  echo $! >"$dir/stunnel-$name.pid"
}

# Like await_ready, with SecureProbe speaking the gateway's security mode.
#   secure_await CP LOG HOST PORT FRAMED COMPACT TIMEOUT DIR PID...
secure_await() {
  local cp=$1 log_file=$2 host=$3 port=$4 framed=$5 compact=$6 timeout=$7 dir=$8
  shift 8
  local props=()
  $sec_http && props+=(-Dprobe.transport=http)
  if $sec_tls; then
    props+=(-Dprobe.tls=true "-Dprobe.truststore=$dir/pki/trust.p12" "-Dprobe.truststore.password=$sec_store_pass")
    host=localhost
  fi
  if [ -n "$sec_qop" ]; then
    props+=("-Dprobe.qop=$sec_qop" "-Dprobe.principal=basalt@$sec_realm" "-Dprobe.keytab=$dir/krb5/client.keytab"
      "-Dprobe.server.host=$(cat "$dir/krb5/server-host")" "-Djava.security.krb5.conf=$dir/krb5/krb5.conf")
  fi
  : >"$log_file"
  (tool_jvm_options=("${props[@]}"); run_tool "$cp" SecureProbe call "$host" "$port" "$framed" "$compact" "$timeout") >"$log_file" 2>&1 &
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

# Writes DIR/gateway-NAME.env for clients.
secure_env() {
  local dir=$1 name=$2 env=$1/gateway-$2.env
  {
    echo "TLS=$sec_tls"
    echo "HTTP=$sec_http"
    echo "QOP=$sec_qop"
    if $sec_tls; then
      echo "CA=$dir/pki/ca.crt"
      echo "OTHER_CA=$dir/pki/other-ca.crt"
      echo "TLS_HOST=localhost"
    fi
    if [ -n "$sec_qop" ]; then
      echo "KRB5_CONFIG=$dir/krb5/krb5.conf"
      echo "KRB5CCNAME=FILE:$dir/krb5/ccache"
      echo "REALM=$sec_realm"
      echo "CLIENT_PRINCIPAL=basalt@$sec_realm"
      echo "CLIENT_KEYTAB=$dir/krb5/client.keytab"
      echo "SERVICE=hbase"
      echo "SERVER_HOST=$(cat "$dir/krb5/server-host")"
    fi
  } >"$env"
}

# JSON fields for gateway-NAME.json (leading comma).
secure_json() {
  printf ',"tls":%s,"http":%s,"kerberos":"%s"' "$sec_tls" "$sec_http" "$sec_qop"
}

# Stops a gateway's stunnel and removes its secure files.
secure_stop_gateway() {
  local dir=$1 name=$2
  stop_pid "$(pid_of "$dir" "stunnel-$name")" "stunnel of gateway $name"
  rm -f "$dir/stunnel-$name.pid" "$dir/gateway-$name.env"
}

# A standalone HBase whose own RPC is secured (start --secure-rpc), for native-RPC
# clients: Kerberos (SASL GSSAPI) with every quality of protection offered
# (hbase.rpc.protection privacy,integrity,authentication: the client picks), and TLS on
# the same port beside plaintext (hbase.server.netty.tls.enabled with supportplaintext;
# no client certificate asked for). The master and region servers log in with the
# run's hbase.keytab (principal hbase/RPC_HOST), and talk to each
# other over Kerberos without TLS; the Thrift2 gateway logs in with the same keytab and
# serves plain Thrift (hbase.thrift.security.qop unset), so tests create tables through
# it. What a client needs goes to DIR/secure-rpc.env (see secure_rpc_env).
#   secure_rpc_prepare DIR CLASSPATH RPC_HOST
secure_rpc_prepare() {
  local dir=$1 cp=$2 rpc_host=$3 krb=$1/krb5 props=""
  [ "$rpc_host" = 127.0.0.1 ] \
    || die "--secure-rpc needs the default --rpc-host 127.0.0.1 (the KDC's principals and the certificate name it)"
  # The programs of an HTTPS Kerberos gateway: openssl and the KDC's, no TLS
  # terminator (secure_missing_packages reads these flags; nothing else in start does).
  sec_tls=true; sec_http=true; sec_qop=auth-conf
  local missing
  missing=$(secure_missing_packages)
  if [ -n "$missing" ]; then
    secure_install $missing
    missing=$(secure_missing_packages)
    [ -z "$missing" ] || die "still missing after installing them: $missing"
  fi
  exec 9>"$dir/secure.lock"
  flock 9
  secure_pki "$dir" "$cp"
  secure_kdc "$dir" "$cp"
  flock -u 9
  exec 9>&-
  prop() { props+="  <property><name>$1</name><value>$2</value></property>"$'\n'; }
  prop hadoop.security.authentication kerberos
  prop hbase.security.authentication kerberos
  # One principal for the master and the region servers, without _HOST: in a local
  # cluster they share one JVM and so one Kerberos login (Hadoop's login user is
  # per process), and clients must ask for the name that login accepts.
  prop hbase.master.kerberos.principal "hbase/$rpc_host@$sec_realm"
  prop hbase.master.keytab.file "$krb/hbase.keytab"
  prop hbase.regionserver.kerberos.principal "hbase/$rpc_host@$sec_realm"
  prop hbase.regionserver.keytab.file "$krb/hbase.keytab"
  prop hbase.rpc.protection privacy,integrity,authentication
  prop hbase.thrift.kerberos.principal "hbase/_HOST@$sec_realm"
  prop hbase.thrift.keytab.file "$krb/hbase.keytab"
  prop hbase.rpc.server.impl org.apache.hadoop.hbase.ipc.NettyRpcServer
  prop hbase.server.netty.tls.enabled true
  prop hbase.server.netty.tls.supportplaintext true
  prop hbase.server.netty.tls.client.auth.mode NONE
  prop hbase.rpc.tls.keystore.location "$dir/pki/server.p12"
  prop hbase.rpc.tls.keystore.type PKCS12
  prop hbase.rpc.tls.keystore.password "$sec_store_pass"
  local site=$dir/conf/hbase-site.xml
  grep -v '<name>hbase.security.authentication</name>' "$site" \
    | awk -v extra="$props" '/<\/configuration>/ { printf "%s", extra } { print }' >"$site.tmp"
  mv "$site.tmp" "$site"
  printf '%s\n' '<?xml version="1.0"?>' '<configuration>' \
    '  <property><name>hadoop.security.authentication</name><value>kerberos</value></property>' \
    '</configuration>' >"$dir/conf/core-site.xml"
  gw_jvm_extra="-Djava.security.krb5.conf=$krb/krb5.conf"
}

# Writes DIR/secure-rpc.env for native-RPC clients of a --secure-rpc HBase.
secure_rpc_env() {
  local dir=$1 rpc_host=$2
  {
    echo "CA=$dir/pki/ca.crt"
    echo "OTHER_CA=$dir/pki/other-ca.crt"
    echo "TLS_HOST=$rpc_host"
    echo "KRB5_CONFIG=$dir/krb5/krb5.conf"
    echo "KRB5CCNAME=FILE:$dir/krb5/ccache"
    echo "REALM=$sec_realm"
    echo "CLIENT_PRINCIPAL=basalt@$sec_realm"
    echo "CLIENT_KEYTAB=$dir/krb5/client.keytab"
    echo "SERVICE=hbase"
    echo "SERVER_HOST=$rpc_host"
    # The region servers (they serve the connection registry), as they announced
    # themselves in the log; the test bed picks their ports at random.
    echo "RPC_SERVERS=$(grep -o 'Serving as [^,]*,[0-9]*' "$dir/logs/master.log" | sed 's/^Serving as //; s/,/:/' \
      | sort -u | paste -sd, -)"
  } >"$dir/secure-rpc.env"
}
