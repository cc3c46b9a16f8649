# shellcheck shell=bash
# Redis: a private redis-server per data folder (redis_start, redis_stop, redis_pid, redis_url), a
# replica of one (redis_replica_start; stopped with redis_stop too), one speaking TLS only (redis_tls_start; stopped with redis_stop too), and a private 3-primary +
# 3-replica Redis Cluster (redis_cluster_start, redis_cluster_stop).
# Sourced by scripts/lib.sh after common.sh; do not run it.
#
# DIR holds its AOF, pid file (redis.pid), log (redis.log) and the port it was last started on
# (redis.port). Loopback only, appendonly yes, appendfsync everysec, and AOF rewrites only once the
# AOF has grown by 1 GB (deploy/compose.yaml's setting; docs/operations.md "Durability of
# accepted messages": Redis's 64 MB default forks a rewrite every few seconds under load).

redis_url() { printf 'redis://127.0.0.1:%s/0\n' "$1"; }

_redis_ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" == PONG ]]; }

# redis_pid DIR: the pid of the redis-server serving DIR, if it is alive.
redis_pid() {
  local dir pid
  dir="$(abs_path "$1")"
  pid="$(cat "$dir/redis.pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

# redis_start DIR PORT [ARGS...]: start redis-server for DIR on 127.0.0.1:PORT (ARGS added to its
# command line) and wait for PONG.
redis_start() {
  local dir port pid oldport
  dir="$(abs_path "$1")"
  port=$2
  shift 2
  [[ "$port" =~ ^[0-9]+$ ]] || { err "bad port '$port'"; return 1; }
  command -v redis-server >/dev/null || { err "redis-server not found: is the redis-server package installed?"; return 1; }
  mkdir -p "$dir" || { err "cannot create $dir"; return 1; }
  if pid="$(redis_pid "$dir")"; then
    oldport="$(cat "$dir/redis.port" 2>/dev/null || true)"
    if [[ "$oldport" != "$port" ]]; then
      err "Redis in $dir already runs (pid $pid) on port ${oldport:-?}, not $port"
      return 1
    fi
    log "Redis in $dir already running on port $port"
  else
    log "starting Redis on 127.0.0.1:$port ($dir)"
    rm -f "$dir/redis.pid"
    printf '%s\n' "$port" >"$dir/redis.port"
    if ! redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" \
      --appendonly yes --appendfsync everysec --auto-aof-rewrite-min-size 1gb \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" "$@" </dev/null >/dev/null 2>&1; then
      err "redis-server failed to start on port $port"
      tail_log "$dir/redis.log"
      return 1
    fi
  fi
  if ! _redis_wait "$dir" "$port"; then
    tail_log "$dir/redis.log"
    return 1
  fi
  redis_url "$port"
}

# _redis_wait DIR PORT: until PONG; fail early when the daemon is gone. Redis writes its pid file
# once it listens (before loading the AOF), so no pid file after 10 s means it gave up.
_redis_wait() {
  local dir=$1 port=$2 start=$SECONDS
  until _redis_ping "$port"; do
    if ((SECONDS - start >= WHISPER_WAIT_TIMEOUT)); then
      err "timed out after ${WHISPER_WAIT_TIMEOUT}s waiting for Redis PONG on port $port"
      return 1
    fi
    if [[ -s "$dir/redis.pid" ]]; then
      if ! redis_pid "$dir" >/dev/null; then
        err "redis-server (port $port) exited during start-up"
        return 1
      fi
    elif ((SECONDS - start >= 10)); then
      err "redis-server (port $port) did not come up (no pid file after 10s)"
      return 1
    fi
    sleep 0.2
  done
}

# redis_replica_start DIR PORT PRIMARY_PORT: a redis-server for DIR replicating 127.0.0.1:PRIMARY_PORT,
# waiting until its link to the primary is up (the primary's WAIT counts it from then on).
redis_replica_start() {
  local dir=$1 port=$2 primary=$3
  redis_start "$dir" "$port" --replicaof 127.0.0.1 "$primary" >/dev/null || return 1
  if ! wait_until "$WHISPER_WAIT_TIMEOUT" "the replica on port $port to sync" _redis_replica_synced "$port"; then
    tail_log "$(abs_path "$dir")/redis.log"
    return 1
  fi
  redis_url "$port"
}

_redis_replica_synced() {
  redis-cli -h 127.0.0.1 -p "$1" info replication 2>/dev/null | grep -q '^master_link_status:up'
}

# redis_stop DIR: SHUTDOWN through redis-cli (it writes the AOF out), then signals if needed.
redis_stop() {
  local dir pid port tls=()
  dir="$(abs_path "$1")"
  [[ -f "$dir/tls/ca.pem" ]] && tls=(--tls --cacert "$dir/tls/ca.pem" --cert "$dir/tls/client.pem" --key "$dir/tls/client.key")
  if ! pid="$(redis_pid "$dir")"; then
    log "Redis in $dir is not running"
    return 0
  fi
  port="$(cat "$dir/redis.port" 2>/dev/null || true)"
  log "stopping Redis ($dir)"
  if [[ -n "$port" ]]; then
    redis-cli "${tls[@]}" -h 127.0.0.1 -p "$port" shutdown >/dev/null 2>&1 || true
  fi
  if wait_until "$WHISPER_WAIT_TIMEOUT" "Redis (pid $pid) to exit" _pid_gone "$pid"; then
    return 0
  fi
  tail_log "$dir/redis.log" 20
  kill -TERM "$pid" 2>/dev/null || true
  if wait_until 10 "Redis (pid $pid) to exit after SIGTERM" _pid_gone "$pid"; then
    return 0
  fi
  kill -KILL "$pid" 2>/dev/null || true
  wait_until 5 "Redis (pid $pid) to exit after SIGKILL" _pid_gone "$pid"
}

# redis_tls_start DIR PORT [CLIENTS]: a redis-server for DIR speaking only TLS on 127.0.0.1:PORT
# (no plain port), with a throwaway CA made by openssl in DIR/tls: ca.pem, a server certificate for
# 127.0.0.1, ::1 and localhost, and a client certificate (client.pem, client.key) signed by the same
# CA. CLIENTS is redis-server's --tls-auth-clients: `optional` (default; an offered certificate
# must verify) or `yes` (required). Prints the rediss:// URL once the server answers PING over TLS.
redis_tls_start() {
  local dir port clients tls pid
  dir="$(abs_path "$1")"
  port=$2
  clients=${3:-optional}
  [[ "$port" =~ ^[0-9]+$ ]] || { err "bad port '$port'"; return 1; }
  tls="$dir/tls"
  mkdir -p "$tls" || { err "cannot create $tls"; return 1; }
  _redis_tls_certificates "$tls" || { err "openssl could not make the test certificates in $tls"; return 1; }
  if pid="$(redis_pid "$dir")"; then
    err "Redis in $dir already runs (pid $pid)"
    return 1
  fi
  log "starting Redis over TLS on 127.0.0.1:$port ($dir)"
  printf '%s\n' "$port" >"$dir/redis.port"
  if ! redis-server --bind 127.0.0.1 --port 0 --tls-port "$port" --dir "$dir" \
    --tls-cert-file "$tls/server.pem" --tls-key-file "$tls/server.key" --tls-ca-cert-file "$tls/ca.pem" \
    --tls-auth-clients "$clients" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    </dev/null >/dev/null 2>&1; then
    err "redis-server failed to start with TLS on port $port"
    tail_log "$dir/redis.log"
    return 1
  fi
  if ! wait_until "$WHISPER_WAIT_TIMEOUT" "Redis TLS PONG on port $port" _redis_tls_ping "$tls" "$port"; then
    tail_log "$dir/redis.log"
    return 1
  fi
  printf 'rediss://127.0.0.1:%s/0\n' "$port"
}

_redis_tls_ping() {
  [[ "$(redis-cli --tls --cacert "$1/ca.pem" --cert "$1/client.pem" --key "$1/client.key" \
    -h 127.0.0.1 -p "$2" ping 2>/dev/null)" == PONG ]]
}

# _redis_tls_certificates DIR: ca.pem/ca.key, server.pem/server.key (127.0.0.1, ::1, localhost)
# and client.pem/client.key, EC P-256, valid for two days.
_redis_tls_certificates() {
  local dir=$1 name
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=whisper test Redis CA" \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null || return 1
  for name in server client; do
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=whisper test Redis $name" \
      -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null || return 1
  done
  printf 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$dir/server.ext"
  printf 'extendedKeyUsage=clientAuth\n' >"$dir/client.ext"
  for name in server client; do
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
      -extfile "$dir/$name.ext" -out "$dir/$name.pem" 2>/dev/null || return 1
  done
  chmod 600 "$dir"/*.key
}

# _redis_cluster_ports N: N free loopback ports whose cluster bus port (+10000) is free too (a
# node exits when it cannot bind its bus), both below the ephemeral range: a parallel test once
# took a node's port as a connection's local port between the check and redis-server's bind.
_redis_cluster_ports() {
  python3 -c 'import random, socket, sys
def free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()
# Below the ephemeral range of the kernel (with the bus port, +10000): a port in it can be
# taken as the local end of any outgoing connection between this check and the bind.
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
except (OSError, ValueError, IndexError):
    ephemeral = 32768
ports = []
while len(ports) < int(sys.argv[1]):
    port = random.randint(10000, max(10001, ephemeral - 10001))
    taken = set(ports) | {p + 10000 for p in ports}
    if port not in taken and port + 10000 not in taken and free(port) and free(port + 10000):
        ports.append(port)
print(" ".join(map(str, ports)))' "$1"
}

# redis_cluster_url DIR: the seeds of the cluster in DIR (its primaries as created).
redis_cluster_url() {
  local dir ports=()
  dir="$(abs_path "$1")"
  read -r -a ports <"$dir/ports"
  printf 'redis://127.0.0.1:%s,127.0.0.1:%s,127.0.0.1:%s/\n' "${ports[0]}" "${ports[1]}" "${ports[2]}"
}

# _redis_cluster_ok REPLICAS PORT...: every node says cluster_state:ok and knows the REPLICAS × 3
# replicas, and every replica's link is up.
_redis_cluster_ok() {
  local replicas=$1 port
  shift
  for port in "$@"; do
    [[ "$(redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null)" == *cluster_state:ok* ]] || return 1
    [[ "$(redis-cli -h 127.0.0.1 -p "$port" cluster nodes 2>/dev/null | grep -c slave)" == $((replicas * 3)) ]] || return 1
    case "$(redis-cli -h 127.0.0.1 -p "$port" info replication 2>/dev/null)" in
      *role:slave*master_link_status:up*) ;;
      *role:master*connected_slaves:"$replicas"*) ;;
      *) return 1 ;;
    esac
  done
}

# redis_cluster_start DIR [REPLICAS]: 3 × (1 + REPLICAS) redis-servers (DIR/PORT each: AOF,
# nodes.conf, redis.pid, redis.log; DIR/ports lists the ports, primaries first), joined by
# `redis-cli --cluster create` as 3 primaries with REPLICAS (default 1; 0 for the benchmark's
# primaries-only cluster) replicas each, node timeout 2 s so a killed primary's replica takes over
# in seconds; waits until every node reports cluster_state:ok with its replicas attached, then
# prints the seeds URL.
redis_cluster_start() {
  local dir replicas=${2:-1} ports=() port nodes=()
  dir="$(abs_path "$1")"
  [[ "$replicas" =~ ^[01]$ ]] || { err "replicas per primary: 0 or 1, not '$replicas'"; return 1; }
  command -v redis-cli >/dev/null || { err "redis-cli not found: is the redis-tools package installed?"; return 1; }
  mkdir -p "$dir" || { err "cannot create $dir"; return 1; }
  read -r -a ports <<<"$(_redis_cluster_ports $((3 * (1 + replicas))))"
  printf '%s\n' "${ports[*]}" >"$dir/ports"
  for port in "${ports[@]}"; do
    _redis_cluster_node_start "$dir" "$port" || return 1
    nodes+=("127.0.0.1:$port")
  done
  log "creating Redis Cluster on ports ${ports[*]}"
  if ! redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes \
    >"$dir/create.log" 2>&1 </dev/null; then
    err "redis-cli --cluster create failed"
    tail_log "$dir/create.log"
    return 1
  fi
  wait_until "$WHISPER_WAIT_TIMEOUT" "Redis Cluster state ok with replicas attached" \
    _redis_cluster_ok "$replicas" "${ports[@]}" || return 1
  redis_cluster_url "$dir"
}

# redis_cluster1_start DIR: one redis-server in cluster mode serving all 16,384 slots (DIR/PORT:
# AOF, nodes.conf; DIR/ports names it), for the benchmark's one-shard cluster: the cluster
# protocol (steps, redirects, sharded pub/sub) without more Redis processes than one. Prints
# its URL.
redis_cluster1_start() {
  local dir port
  dir="$(abs_path "$1")"
  mkdir -p "$dir" || { err "cannot create $dir"; return 1; }
  port="$(_redis_cluster_ports 1)"
  printf '%s\n' "$port" >"$dir/ports"
  _redis_cluster_node_start "$dir" "$port" || return 1
  redis-cli -h 127.0.0.1 -p "$port" cluster addslotsrange 0 16383 >/dev/null || { err "CLUSTER ADDSLOTSRANGE failed"; return 1; }
  wait_until "$WHISPER_WAIT_TIMEOUT" "one-shard Redis Cluster state ok" _redis_cluster_ok 0 "$port" || return 1
  printf 'redis://127.0.0.1:%s/\n' "$port"
}

# _redis_cluster_node_start DIR PORT: the node of DIR/PORT (a new one, or one that was stopped or
# killed: it rejoins with its nodes.conf).
_redis_cluster_node_start() {
  # No 5 s wait for more replicas before the first (diskless) sync: each primary has one.
  redis_start "$1/$2" "$2" --cluster-enabled yes --cluster-config-file nodes.conf \
    --cluster-node-timeout 2000 --repl-diskless-sync-delay 0 >/dev/null
}

# redis_cluster_restart DIR PORT: starts the stopped or killed node PORT of the 3 + 3 cluster in
# DIR again and waits until the cluster is whole (a primary whose replica took over comes back as
# that replica's replica).
redis_cluster_restart() {
  local dir ports=()
  dir="$(abs_path "$1")"
  read -r -a ports <"$dir/ports"
  _redis_cluster_node_start "$dir" "$2" || return 1
  wait_until "$WHISPER_WAIT_TIMEOUT" "Redis Cluster state ok with node $2 back" \
    _redis_cluster_ok 1 "${ports[@]}"
}

# redis_cluster_stop DIR: stops every node of the cluster in DIR at once (each takes about 2 s;
# a node already gone is fine).
redis_cluster_stop() {
  local dir ports=() port status=0
  dir="$(abs_path "$1")"
  [[ -s "$dir/ports" ]] || return 0
  read -r -a ports <"$dir/ports"
  for port in "${ports[@]}"; do
    redis_stop "$dir/$port" &
  done
  for port in "${ports[@]}"; do
    wait -n || status=1
  done
  return "$status"
}
