# shellcheck shell=bash
# whisper-server processes: server_start (background `serve`, wait for GET /health) and
# server_stop. Used by scripts/test and scripts/bench.
# Sourced by scripts/lib.sh after common.sh; do not run it.

_http_ok() { curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; }

# server_start BIN LOG PUBLIC_PORT ADMIN_PORT DB_URL REDIS_URL [VAR=VALUE...]: start
# `BIN serve` in the background on loopback, wait for GET /health = 200. Sets SERVER_PID.
server_start() {
  local bin=$1 logf=$2 port=$3 admin=$4 db=$5 redis=$6 start
  shift 6
  [[ -x "$bin" ]] || { err "server binary $bin not found (swift build?)"; return 1; }
  env -u WHISPER_TEST_ECHO \
    WHISPER_PUBLIC_ADDR="127.0.0.1:$port" WHISPER_ADMIN_ADDR="127.0.0.1:$admin" \
    WHISPER_DATABASE_URL="$db" WHISPER_REDIS_URL="$redis" WHISPER_MIGRATE_ON_START=1 \
    "$@" "$bin" serve </dev/null >"$logf" 2>&1 &
  SERVER_PID=$!
  start=$SECONDS
  until _http_ok "http://127.0.0.1:$port/health"; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      local code=0
      wait "$SERVER_PID" || code=$?
      err "whisper-server exited with status $code during start-up"
      tail_log "$logf"
      SERVER_PID=""
      return 1
    fi
    if ((SECONDS - start >= WHISPER_WAIT_TIMEOUT)); then
      err "whisper-server did not answer GET /health on port $port within ${WHISPER_WAIT_TIMEOUT}s"
      tail_log "$logf"
      server_stop >/dev/null 2>&1 || true
      return 1
    fi
    sleep 0.2
  done
  log "whisper-server up (pid $SERVER_PID, public 127.0.0.1:$port, admin 127.0.0.1:$admin)"
}

# server_stop: SIGTERM the server started by server_start, wait up to 30 s (then SIGKILL).
# Returns the server's exit status.
server_stop() {
  local pid=${SERVER_PID:-} code=0
  [[ -n "$pid" ]] || return 0
  SERVER_PID=""
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_until 30 "whisper-server (pid $pid) to exit after SIGTERM" _pid_gone "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || code=$?
  return "$code"
}
