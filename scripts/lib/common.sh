# shellcheck shell=bash
# Logging, waits and small process/path helpers that every other part of scripts/lib uses:
# log, err, stage, tail_log, as_root, free_port, wait_until, abs_path, _pid_gone.
# Sourced by scripts/lib.sh (first); do not run it.

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

# free_port: print a TCP port on 127.0.0.1 that the kernel says is free right now.
free_port() {
  free_ports 1
}

# free_ports N: N distinct free ports on one line; every socket stays bound until all were
# chosen (one after the other, the kernel may hand out the same port twice).
free_ports() {
  python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()' "$1"
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

# _pid_gone PID: true when no process PID exists (any more).
_pid_gone() { ! kill -0 "$1" 2>/dev/null; }
