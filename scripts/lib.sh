# shellcheck shell=bash
# Helpers shared by scripts/run, scripts/test and scripts/services. Source it; do not run it.
#
# Every function prints its errors to stderr and returns non-zero on failure. Every wait is
# bounded by WHISPER_WAIT_TIMEOUT seconds (default 60) and, when it gives up, prints the tail of
# the relevant log.

if [[ -n "${WHISPER_LIB_SOURCED:-}" ]]; then return 0; fi
WHISPER_LIB_SOURCED=1

WHISPER_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHISPER_WAIT_TIMEOUT="${WHISPER_WAIT_TIMEOUT:-60}"
if [[ -z "${HOME:-}" ]]; then HOME="$(getent passwd "$(id -u)" | cut -d: -f6)"; export HOME; fi
WHISPER_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/whisper-relay"

# Debian packages the project needs: C libraries for the build, the two servers, and curl.
WHISPER_APT_PACKAGES=(
  libpq-dev libhiredis-dev libsodium-dev libssl-dev zlib1g-dev pkg-config
  postgresql redis-server
  curl
)

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
err() { printf '[%s] error: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
stage() { printf '\n==> %s\n' "$*" >&2; }

# tail_log FILE [LINES]: print the end of a log file, framed, to stderr.
tail_log() {
  local file=$1 lines=${2:-40}
  if [[ -s "$file" ]]; then
    printf -- '----- last %s lines of %s -----\n' "$lines" "$file" >&2
    tail -n "$lines" "$file" >&2
    printf -- '----- end of %s -----\n' "$file" >&2
  else
    printf -- '(%s is empty or missing)\n' "$file" >&2
  fi
}

# as_root CMD...: run a command as root (directly when we are root, else through sudo).
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# ensure_packages [EXTRA...]: install whichever of WHISPER_APT_PACKAGES (and EXTRA) is missing,
# with a single `apt-get update`, and only when something is missing.
ensure_packages() {
  local missing=() p
  for p in "${WHISPER_APT_PACKAGES[@]}" "$@"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  log "installing Debian packages: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null || {
    err "apt-get update failed"; return 1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" </dev/null || { err "apt-get install ${missing[*]} failed"; return 1; }
}

# free_port: print a TCP port on 127.0.0.1 that the kernel says is free right now.
free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# wait_until SECONDS DESCRIPTION CMD...: retry CMD every 0.2 s until it succeeds or time runs out.
wait_until() {
  local timeout=$1 what=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      err "timed out after ${timeout}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

# abs_path PATH: absolute form of PATH (which need not exist yet).
abs_path() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$PWD" "$1" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL
#
# A private cluster: DIR is its data directory, owned by the `postgres` OS user (initdb and
# postgres refuse to run as root). Trust authentication on loopback only, listening on
# 127.0.0.1:PORT, its Unix socket inside DIR. Role `whisper` (LOGIN CREATEDB) owns database
# `whisper`. WHISPER_PG_FSYNC=off turns fsync/synchronous_commit/full_page_writes off (tests only).
# ---------------------------------------------------------------------------------------------

pg_bindir() {
  local d
  if command -v pg_config >/dev/null 2>&1; then
    d="$(pg_config --bindir 2>/dev/null || true)"
    if [[ -n "$d" && -x "$d/initdb" && -x "$d/pg_ctl" ]]; then
      printf '%s\n' "$d"
      return 0
    fi
  fi
  d="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1)"
  if [[ -n "$d" && -x "$d/initdb" ]]; then
    printf '%s\n' "$d"
    return 0
  fi
  err "PostgreSQL server binaries (initdb, pg_ctl) not found: is the postgresql package installed?"
  return 1
}

# as_pg CMD...: run a command as the postgres OS user (as ourselves when we are not root).
as_pg() {
  if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_url() { printf 'postgresql://whisper@127.0.0.1:%s/whisper\n' "$1"; }

# pg_running DIR: true when a postmaster serves DIR.
pg_running() {
  local dir bindir
  dir="$(abs_path "$1")"
  [[ -f "$dir/postmaster.pid" ]] || return 1
  bindir="$(pg_bindir)" || return 1
  as_pg "$bindir/pg_ctl" -D "$dir" status >/dev/null 2>&1
}

# pg_running_port DIR: the port recorded by the running postmaster.
pg_running_port() { sed -n '4p' "$(abs_path "$1")/postmaster.pid" 2>/dev/null; }

# _pg_prepare_dir DIR: create DIR owned by postgres, and check postgres can reach it.
_pg_prepare_dir() {
  local dir=$1
  mkdir -p "$dir" || { err "cannot create $dir"; return 1; }
  if [[ $EUID -eq 0 ]]; then
    if ! chown postgres:postgres "$dir" || ! chmod 700 "$dir"; then
      err "cannot hand $dir to the postgres user"
      return 1
    fi
    if ! runuser -u postgres -- test -w "$dir" -a -x "$dir"; then
      err "the postgres OS user cannot reach $dir: some parent folder is not searchable by others" \
        "(e.g. /root is mode 700). Use a data folder elsewhere, or 'chmod o+x' its parents."
      return 1
    fi
  fi
}

# _pg_write_conf DIR PORT: (re)write the settings this project owns; included from postgresql.conf.
_pg_write_conf() {
  local dir=$1 port=$2 fsync=${WHISPER_PG_FSYNC:-on} sockdir=$1
  case "$fsync" in
    on | off) ;;
    *) err "WHISPER_PG_FSYNC must be on or off, not '$fsync'"; return 1 ;;
  esac
  # A Unix socket path is limited to 107 bytes; past that use TCP only.
  if ((${#dir} + 20 > 107)); then sockdir=""; fi
  if [[ "$dir" == *"'"* ]]; then err "a quote in the data folder path is not supported: $dir"; return 1; fi
  as_pg tee "$dir/whisper.conf" >/dev/null <<EOF || { err "cannot write $dir/whisper.conf"; return 1; }
# Written by scripts/lib.sh on every start; edit postgresql.conf for your own settings.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sockdir'
fsync = $fsync
synchronous_commit = $fsync
full_page_writes = $fsync
max_connections = 200
logging_collector = off
log_min_messages = warning
EOF
}

# pg_init DIR: initdb DIR if it is not a cluster yet.
pg_init() {
  local dir bindir initlog
  dir="$(abs_path "$1")"
  bindir="$(pg_bindir)" || return 1
  if [[ -f "$dir/PG_VERSION" ]]; then
    return 0
  fi
  _pg_prepare_dir "$dir" || return 1
  if [[ -n "$(ls -A "$dir")" ]]; then
    err "$dir is neither empty nor a PostgreSQL data folder"
    return 1
  fi
  log "initdb $dir"
  initlog="$(mktemp)"
  if ! as_pg "$bindir/initdb" -D "$dir" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    >"$initlog" 2>&1 </dev/null; then
    err "initdb failed for $dir"
    tail_log "$initlog"
    rm -f "$initlog"
    return 1
  fi
  rm -f "$initlog"
  # Loopback only, trust (this is a private development/test cluster).
  as_pg tee "$dir/pg_hba.conf" >/dev/null <<'EOF'
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
host    all       all   ::1/128        trust
EOF
  printf "\ninclude_if_exists = 'whisper.conf'\n" | as_pg tee -a "$dir/postgresql.conf" >/dev/null
}

# pg_start DIR PORT: initialise DIR if needed, start the cluster on 127.0.0.1:PORT, ensure role
# and database `whisper`. Prints the connection URL. Already running on PORT: just prints it.
pg_start() {
  local dir port bindir running_port
  dir="$(abs_path "$1")"
  port=$2
  [[ "$port" =~ ^[0-9]+$ ]] || { err "bad port '$port'"; return 1; }
  bindir="$(pg_bindir)" || return 1
  if pg_running "$dir"; then
    running_port="$(pg_running_port "$dir")"
    if [[ "$running_port" != "$port" ]]; then
      err "PostgreSQL in $dir already runs on port $running_port, not $port"
      return 1
    fi
    log "PostgreSQL in $dir already running on port $port"
  else
    pg_init "$dir" || return 1
    _pg_prepare_dir "$dir" || return 1
    _pg_write_conf "$dir" "$port" || return 1
    log "starting PostgreSQL on 127.0.0.1:$port ($dir)"
    if ! as_pg "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t "$WHISPER_WAIT_TIMEOUT" \
      start >/dev/null 2>"$dir/pg_ctl.err" </dev/null; then
      err "PostgreSQL did not start on port $port within ${WHISPER_WAIT_TIMEOUT}s"
      tail_log "$dir/pg_ctl.err" 10
      tail_log "$dir/server.log"
      return 1
    fi
  fi
  _pg_ensure_db "$dir" "$port" || return 1
  pg_url "$port"
}

_pg_psql() {
  local port=$1
  shift
  "$(pg_bindir)/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@" </dev/null
}

_pg_ensure_db() {
  local dir=$1 port=$2
  if [[ "$(_pg_psql "$port" -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = 'whisper'")" != 1 ]]; then
    _pg_psql "$port" -d postgres -c 'CREATE ROLE whisper LOGIN CREATEDB' ||
      { err "cannot create role whisper"; tail_log "$dir/server.log" 20; return 1; }
  fi
  if [[ "$(_pg_psql "$port" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'whisper'")" != 1 ]]; then
    _pg_psql "$port" -d postgres -c 'CREATE DATABASE whisper OWNER whisper' ||
      { err "cannot create database whisper"; tail_log "$dir/server.log" 20; return 1; }
  fi
}

# pg_stop DIR: fast shutdown (immediate if that times out). Not running: nothing to do.
pg_stop() {
  local dir bindir
  dir="$(abs_path "$1")"
  bindir="$(pg_bindir)" || return 1
  if ! pg_running "$dir"; then
    log "PostgreSQL in $dir is not running"
    return 0
  fi
  log "stopping PostgreSQL ($dir)"
  if as_pg "$bindir/pg_ctl" -D "$dir" -w -t "$WHISPER_WAIT_TIMEOUT" -m fast stop >/dev/null 2>&1 </dev/null; then
    return 0
  fi
  err "PostgreSQL in $dir did not stop within ${WHISPER_WAIT_TIMEOUT}s; trying immediate shutdown"
  tail_log "$dir/server.log" 20
  as_pg "$bindir/pg_ctl" -D "$dir" -w -t 20 -m immediate stop >/dev/null 2>&1 </dev/null || {
    err "PostgreSQL in $dir would not stop"; return 1; }
}

# ---------------------------------------------------------------------------------------------
# Redis
#
# A private redis-server: DIR holds its AOF, pid file (redis.pid), log (redis.log) and the port
# it was last started on (redis.port). Loopback only, appendonly yes, appendfsync everysec.
# ---------------------------------------------------------------------------------------------

redis_url() { printf 'redis://127.0.0.1:%s/0\n' "$1"; }

_redis_ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" == PONG ]]; }

# redis_pid DIR: the pid of the redis-server serving DIR, if it is alive.
redis_pid() {
  local dir pid
  dir="$(abs_path "$1")"
  pid="$(cat "$dir/redis.pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

# redis_start DIR PORT: start redis-server for DIR on 127.0.0.1:PORT and wait for PONG.
redis_start() {
  local dir port pid oldport
  dir="$(abs_path "$1")"
  port=$2
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
      --appendonly yes --appendfsync everysec \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" </dev/null >/dev/null 2>&1; then
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

# redis_stop DIR: SHUTDOWN through redis-cli (it writes the AOF out), then signals if needed.
redis_stop() {
  local dir pid port
  dir="$(abs_path "$1")"
  if ! pid="$(redis_pid "$dir")"; then
    log "Redis in $dir is not running"
    return 0
  fi
  port="$(cat "$dir/redis.port" 2>/dev/null || true)"
  log "stopping Redis ($dir)"
  if [[ -n "$port" ]]; then
    redis-cli -h 127.0.0.1 -p "$port" shutdown >/dev/null 2>&1 || true
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

_pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# ---------------------------------------------------------------------------------------------
# Python tools, cached under ${XDG_CACHE_HOME:-~/.cache}/whisper-relay
# ---------------------------------------------------------------------------------------------

# _with_lock FILE CMD...: run CMD holding an exclusive lock (parallel runs share the cache).
_with_lock() {
  local lock=$1
  shift
  mkdir -p "$(dirname "$lock")"
  (
    flock -w 1200 9 || { err "could not lock $lock"; exit 1; }
    "$@"
  ) 9>"$lock"
}

# python2_bin: the Python 2.7 interpreter Autobahn|Testsuite needs (pyenv's 2.7.18).
python2_bin() {
  local root cand
  if [[ -n "${WHISPER_PYTHON2:-}" ]]; then
    printf '%s\n' "$WHISPER_PYTHON2"
    return 0
  fi
  root="${PYENV_ROOT:-}"
  if [[ -z "$root" ]] && command -v pyenv >/dev/null 2>&1; then root="$(pyenv root 2>/dev/null || true)"; fi
  for cand in "${root:+$root/versions/2.7.18/bin/python}" "$HOME/.pyenv/versions/2.7.18/bin/python" \
    "$(command -v python2.7 2>/dev/null || true)"; do
    if [[ -n "$cand" && -x "$cand" ]]; then
      printf '%s\n' "$cand"
      return 0
    fi
  done
  err "Python 2.7 not found (looked for pyenv's 2.7.18); set WHISPER_PYTHON2 to a python2.7 binary"
  return 1
}

# autobahn_venv: print the path of a virtualenv with wstest installed, installing it on first use.
autobahn_venv() {
  local venv="$WHISPER_CACHE_DIR/autobahn/venv"
  if [[ -f "$venv/.whisper-ok" && -x "$venv/bin/wstest" ]]; then
    printf '%s\n' "$venv"
    return 0
  fi
  _with_lock "$WHISPER_CACHE_DIR/autobahn.lock" _autobahn_install "$venv" || return 1
  printf '%s\n' "$venv"
}

_autobahn_install() {
  local venv=$1 py2 tools logf
  [[ -f "$venv/.whisper-ok" && -x "$venv/bin/wstest" ]] && return 0
  py2="$(python2_bin)" || return 1
  tools="$(dirname "$venv")/virtualenv-py2"
  logf="$(dirname "$venv")/install.log"
  log "installing Autobahn|Testsuite into $venv (first run only; log: $logf)"
  rm -rf "$venv" "$tools"
  mkdir -p "$(dirname "$venv")"
  {
    "$py2" -m pip install --disable-pip-version-check --no-warn-script-location -q \
      --target "$tools" 'virtualenv<20.22' &&
      PYTHONPATH="$tools" "$py2" -m virtualenv -q "$venv" &&
      "$venv/bin/pip" install --disable-pip-version-check -q autobahntestsuite &&
      "$venv/bin/wstest" --help
  } >"$logf" 2>&1 </dev/null || {
    err "Autobahn|Testsuite install failed"
    tail_log "$logf"
    rm -rf "$venv"
    return 1
  }
  touch "$venv/.whisper-ok"
}

# python3_bin: a Python 3 that can make virtual environments.
python3_bin() {
  local py=${WHISPER_PYTHON3:-python3}
  if "$py" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    command -v "$py"
    return 0
  fi
  ensure_packages python3-venv || return 1
  if /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    printf '/usr/bin/python3\n'
    return 0
  fi
  err "no Python 3 with venv/ensurepip found"
  return 1
}

# interop_venv: print the path of a venv with Tests/interop/requirements.txt installed. The venv
# is rebuilt when the requirements file or the interpreter changes.
interop_venv() {
  local venv="$WHISPER_CACHE_DIR/interop-venv" req="$WHISPER_REPO_ROOT/Tests/interop/requirements.txt" py key
  py="$(python3_bin)" || return 1
  key="$(cat "$req" <("$py" -c 'import sys; print(sys.executable, sys.version)') | sha256sum | cut -c1-16)"
  if [[ "$(cat "$venv/.whisper-ok" 2>/dev/null || true)" == "$key" ]]; then
    printf '%s\n' "$venv"
    return 0
  fi
  _with_lock "$WHISPER_CACHE_DIR/interop-venv.lock" _interop_install "$venv" "$py" "$req" "$key" || return 1
  printf '%s\n' "$venv"
}

_interop_install() {
  local venv=$1 py=$2 req=$3 key=$4 logf
  [[ "$(cat "$venv/.whisper-ok" 2>/dev/null || true)" == "$key" ]] && return 0
  logf="$(dirname "$venv")/interop-install.log"
  log "installing the interop test venv into $venv (log: $logf)"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  {
    "$py" -m venv "$venv" &&
      "$venv/bin/pip" install --disable-pip-version-check -q -r "$req"
  } >"$logf" 2>&1 </dev/null || {
    err "interop venv install failed"
    tail_log "$logf"
    rm -rf "$venv"
    return 1
  }
  printf '%s\n' "$key" >"$venv/.whisper-ok"
}

# ---------------------------------------------------------------------------------------------
# whisper-server processes (scripts/test)
# ---------------------------------------------------------------------------------------------

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

# autobahn_evaluate INDEX_JSON...: print failing cases (with expected/received from their reports)
# and a summary line `autobahn: N passed, M failed`. Non-zero when a case failed or none ran.
# OK, NON-STRICT and INFORMATIONAL pass; UNIMPLEMENTED passes only with
# WHISPER_AUTOBAHN_ALLOW_UNIMPLEMENTED=1.
autobahn_evaluate() {
  python3 - "$@" <<'PY'
import json, os, sys

good = {"OK", "NON-STRICT", "INFORMATIONAL"}
if os.environ.get("WHISPER_AUTOBAHN_ALLOW_UNIMPLEMENTED") == "1":
    good.add("UNIMPLEMENTED")

def case_key(case_id):
    return tuple(int(p) if p.isdigit() else p for p in case_id.split("."))

def short(value, limit=300):
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + "..."

# Every shard's index.json: {agent: {case: result}}; remember where each case's report lives.
results = []
for index_path in sys.argv[1:]:
    try:
        with open(index_path) as f:
            index = json.load(f)
    except (OSError, ValueError) as e:
        print("autobahn: cannot read %s: %s" % (index_path, e))
        print("autobahn: 0 passed, 1 failed")
        sys.exit(1)
    for agent, cases in index.items():
        for case_id, r in cases.items():
            results.append((agent, case_id, r, os.path.dirname(index_path)))

passed, failed = 0, []
for agent, case_id, r, report_dir in sorted(results, key=lambda t: (t[0], case_key(t[1]))):
    if r.get("behavior") in good and r.get("behaviorClose") in good:
        passed += 1
    else:
        failed.append((agent, case_id, r, report_dir))

for agent, case_id, r, report_dir in failed:
    print("FAILED %s: behavior=%s behaviorClose=%s remoteCloseCode=%s" % (
        case_id, r.get("behavior"), r.get("behaviorClose"), r.get("remoteCloseCode")))
    try:
        with open(os.path.join(report_dir, r.get("reportfile", ""))) as f:
            detail = json.load(f)
    except (OSError, ValueError):
        continue
    print("    description: %s" % short(detail.get("description", ""), 200))
    print("    result:      %s" % short(detail.get("result", "")))
    print("    expected:    %s" % short(detail.get("expected")))
    print("    received:    %s" % short(detail.get("received")))
    if r.get("behaviorClose") not in good:
        print("    resultClose: %s" % short(detail.get("resultClose", "")))
        print("    expectedClose: %s" % short(detail.get("expectedClose")))

if failed:
    print("autobahn: failing cases: %s" % " ".join(c for _, c, _, _ in failed))
print("autobahn: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed or passed == 0 else 0)
PY
}
