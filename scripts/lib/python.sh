# shellcheck shell=bash
# Python tools, cached under ${XDG_CACHE_HOME:-~/.cache}/whisper-relay: the Autobahn|Testsuite
# virtualenv (Python 2.7, wstest) and the venv for the pytest interop tests (Tests/interop).
# Sourced by scripts/lib.sh after common.sh and packages.sh; do not run it.

WHISPER_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/whisper-relay"

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
