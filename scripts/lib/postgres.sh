# shellcheck shell=bash
# PostgreSQL: a private cluster per data folder (pg_start, pg_stop, pg_running, pg_running_port,
# pg_url, pg_init, pg_bindir, as_pg).
# Sourced by scripts/lib.sh after common.sh; do not run it.
#
# A private cluster: DIR is its data directory, owned by the `postgres` OS user (initdb and
# postgres refuse to run as root). Trust authentication on loopback only, listening on
# 127.0.0.1:PORT, its Unix socket inside DIR. Role `whisper` (LOGIN CREATEDB) owns database
# `whisper`. WHISPER_PG_FSYNC=off turns fsync/synchronous_commit/full_page_writes off (tests only);
# WHISPER_PG_MAX_CONNECTIONS sets max_connections (default 200).

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
  local dir=$1 port=$2 fsync=${WHISPER_PG_FSYNC:-on} sockdir=$1 connections=${WHISPER_PG_MAX_CONNECTIONS:-200}
  case "$fsync" in
    on | off) ;;
    *) err "WHISPER_PG_FSYNC must be on or off, not '$fsync'"; return 1 ;;
  esac
  [[ "$connections" =~ ^[1-9][0-9]*$ ]] || { err "WHISPER_PG_MAX_CONNECTIONS must be a number, not '$connections'"; return 1; }
  # A Unix socket path is limited to 107 bytes; past that use TCP only.
  if ((${#dir} + 20 > 107)); then sockdir=""; fi
  if [[ "$dir" == *"'"* ]]; then err "a quote in the data folder path is not supported: $dir"; return 1; fi
  as_pg tee "$dir/whisper.conf" >/dev/null <<EOF || { err "cannot write $dir/whisper.conf"; return 1; }
# Written by scripts/lib/postgres.sh on every start; edit postgresql.conf for your own settings.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sockdir'
fsync = $fsync
synchronous_commit = $fsync
full_page_writes = $fsync
max_connections = $connections
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
