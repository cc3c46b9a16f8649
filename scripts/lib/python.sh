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

# pyenv_python VERSION OVERRIDE NAME: the interpreter in $OVERRIDE if set, else pyenv's VERSION,
# else NAME on the PATH.
pyenv_python() {
  local version=$1 override=$2 name=$3 root cand
  if [[ -n "${!override:-}" ]]; then
    printf '%s\n' "${!override}"
    return 0
  fi
  root="${PYENV_ROOT:-}"
  if [[ -z "$root" ]] && command -v pyenv >/dev/null 2>&1; then root="$(pyenv root 2>/dev/null || true)"; fi
  for cand in "${root:+$root/versions/$version/bin/python}" "$HOME/.pyenv/versions/$version/bin/python" \
    "$(command -v "$name" 2>/dev/null || true)"; do
    if [[ -n "$cand" && -x "$cand" ]]; then
      printf '%s\n' "$cand"
      return 0
    fi
  done
  err "Python $version not found (looked for pyenv's $version and $name); set $override to a $name binary"
  return 1
}

# python2_bin: the Python 2.7 interpreter Autobahn|Testsuite needs (pyenv's 2.7.18).
python2_bin() { pyenv_python 2.7.18 WHISPER_PYTHON2 python2.7; }

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
  local req="$WHISPER_REPO_ROOT/Tests/interop/requirements.txt" py key
  py="$(python3_bin)" || return 1
  key="$(cat "$req" <("$py" -c 'import sys; print(sys.executable, sys.version)') | sha256sum | cut -c1-16)"
  cached_venv "$WHISPER_CACHE_DIR/interop-venv" "$py" "$key" interop 'import pytest' -r "$req"
}

# cached_venv VENV PY KEY NAME CHECK PIP_ARGS...: print VENV, first (re)building it under a lock
# unless it was built for KEY: a venv of PY, `pip install PIP_ARGS`, then the Python statement
# CHECK must run in it. Parallel runs share the cache; the lock makes one of them install.
cached_venv() {
  local venv=$1 key=$3 name=$4
  if [[ "$(cat "$venv/.whisper-ok" 2>/dev/null || true)" != "$key" ]]; then
    _with_lock "$WHISPER_CACHE_DIR/$name-venv.lock" _venv_install "$@" || return 1
  fi
  printf '%s\n' "$venv"
}

_venv_install() {
  local venv=$1 py=$2 key=$3 name=$4 check=$5 logf t0=$SECONDS
  shift 5
  [[ "$(cat "$venv/.whisper-ok" 2>/dev/null || true)" == "$key" ]] && return 0
  logf="$(dirname "$venv")/$name-install.log"
  log "installing the $name venv into $venv (log: $logf)"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  {
    "$py" -m venv "$venv" &&
      "$venv/bin/pip" install --disable-pip-version-check -q "$@" &&
      "$venv/bin/python" -c "$check"
  } >"$logf" 2>&1 </dev/null || {
    err "$name venv install failed"
    tail_log "$logf"
    rm -rf "$venv"
    return 1
  }
  printf '%s\n' "$key" >"$venv/.whisper-ok"
  log "$name venv installed in $((SECONDS - t0))s"
}
