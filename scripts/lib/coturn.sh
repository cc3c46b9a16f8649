# shellcheck shell=bash
# coturn: a private TURN server per data folder (turn_start, turn_stop), for the tests of the
# TURN REST credentials the relay issues. Sourced by scripts/lib.sh after common.sh; do not run it.
#
# DIR holds its config (turnserver.conf), pid file, log and user database. Loopback only, no
# TLS/DTLS, no CLI; `use-auth-secret` with the given shared secret, which is exactly the scheme
# `get_turn_credentials` signs for (docs/protocol.md "TURN credentials").

# turn_pid DIR: the pid of the turnserver serving DIR, if it is alive.
turn_pid() {
  local pid
  pid="$(cat "$(abs_path "$1")/turnserver.pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

# turn_start DIR PORT SECRET: start coturn for DIR on 127.0.0.1:PORT (UDP and TCP) and wait
# until it accepts TCP connections.
turn_start() {
  local dir port=$2 secret=$3
  dir="$(abs_path "$1")"
  [[ "$port" =~ ^[0-9]+$ ]] || { err "bad port '$port'"; return 1; }
  command -v turnserver >/dev/null || { err "turnserver not found: is the coturn package installed?"; return 1; }
  mkdir -p "$dir" || { err "cannot create $dir"; return 1; }
  log "starting coturn on 127.0.0.1:$port ($dir)"
  # Relay ports: a small private range above the ephemeral ports free_port hands out.
  cat >"$dir/turnserver.conf" <<CONF
listening-ip=127.0.0.1
listening-port=$port
relay-ip=127.0.0.1
min-port=$((port % 1000 + 40000))
max-port=$((port % 1000 + 40063))
use-auth-secret
static-auth-secret=$secret
realm=whisper.test
no-tls
no-dtls
no-cli
no-multicast-peers
allow-loopback-peers
userdb=$dir/turndb
pidfile=$dir/turnserver.pid
log-file=$dir/turn.log
simple-log
CONF
  chmod 600 "$dir/turnserver.conf"
  if ! turnserver -c "$dir/turnserver.conf" -o </dev/null >"$dir/turnserver.out" 2>&1; then
    err "turnserver failed to start on port $port"
    tail_log "$dir/turnserver.out"
    return 1
  fi
  if ! wait_until "$WHISPER_WAIT_TIMEOUT" "coturn on port $port" \
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close()" "$port"; then
    tail_log "$dir/turnserver.out"
    return 1
  fi
}

# turn_stop DIR: stop the coturn serving DIR (SIGTERM, then SIGKILL after 10 s).
turn_stop() {
  local dir pid i
  dir="$(abs_path "$1")"
  pid="$(turn_pid "$dir")" || return 0
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}
