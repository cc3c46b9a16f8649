# shellcheck shell=bash
# Helpers shared by scripts/run, scripts/test, scripts/services and scripts/bench. Source it; do
# not run it. It sets the shared settings below and sources the parts in scripts/lib/:
#
#   common.sh    log, err, stage, tail_log, as_root, free_port, wait_until, abs_path
#   packages.sh  ensure_packages (the Debian packages the project needs), promtool_dir, amtool_dir
#   postgres.sh  pg_start, pg_stop, pg_running, pg_running_port, pg_url: private PostgreSQL
#   redis.sh     redis_start, redis_stop, redis_pid, redis_url: private Redis
#   server.sh    server_start, server_stop: whisper-server in the background
#   python.sh    autobahn_venv, interop_venv, cached_venv, pyenv_python: cached Python tools
#   coturn.sh    turn_start, turn_stop, turn_pid: private coturn (TURN REST credentials)
#   localstack.sh  localstack_venv, localstack_start, localstack_stop: private S3 (attachments)
#   autobahn.sh  autobahn_write_spec, autobahn_evaluate (autobahn_spec.py, autobahn_evaluate.py)
#   buildinfo.sh write_build_info: the commit and date whisper-server --version reports
#
# Every function prints its errors to stderr and returns non-zero on failure. Every wait is
# bounded by WHISPER_WAIT_TIMEOUT seconds (default 60) and, when it gives up, prints the tail of
# the relevant log.

if [[ -n "${WHISPER_LIB_SOURCED:-}" ]]; then return 0; fi
WHISPER_LIB_SOURCED=1

WHISPER_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHISPER_WAIT_TIMEOUT="${WHISPER_WAIT_TIMEOUT:-60}"
if [[ -z "${HOME:-}" ]]; then HOME="$(getent passwd "$(id -u)" | cut -d: -f6)"; export HOME; fi

# shellcheck source=scripts/lib/common.sh
source "$WHISPER_REPO_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/packages.sh
source "$WHISPER_REPO_ROOT/scripts/lib/packages.sh"
# shellcheck source=scripts/lib/postgres.sh
source "$WHISPER_REPO_ROOT/scripts/lib/postgres.sh"
# shellcheck source=scripts/lib/redis.sh
source "$WHISPER_REPO_ROOT/scripts/lib/redis.sh"
# shellcheck source=scripts/lib/server.sh
source "$WHISPER_REPO_ROOT/scripts/lib/server.sh"
# shellcheck source=scripts/lib/python.sh
source "$WHISPER_REPO_ROOT/scripts/lib/python.sh"
# shellcheck source=scripts/lib/coturn.sh
source "$WHISPER_REPO_ROOT/scripts/lib/coturn.sh"
# shellcheck source=scripts/lib/localstack.sh
source "$WHISPER_REPO_ROOT/scripts/lib/localstack.sh"
# shellcheck source=scripts/lib/autobahn.sh
source "$WHISPER_REPO_ROOT/scripts/lib/autobahn.sh"
# shellcheck source=scripts/lib/buildinfo.sh
source "$WHISPER_REPO_ROOT/scripts/lib/buildinfo.sh"
