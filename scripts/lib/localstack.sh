# shellcheck shell=bash
# LocalStack S3: a private S3 per data folder (localstack_start, localstack_stop), for the tests of
# the attachment presigning (docs/protocol.md "Attachments"). LocalStack checks SigV4 signatures
# (S3_SKIP_SIGNATURE_VALIDATION=0), so a tampered or expired presigned URL gets 403, as on AWS;
# `moto_server` would accept any signature. No Docker: `localstack-core` from PyPI on Python 3.13,
# in a venv cached under ${XDG_CACHE_HOME:-~/.cache}/whisper-relay/localstack-venv.
# Sourced by scripts/lib.sh after common.sh and python.sh; do not run it.

# The pins keep localstack-core's runtime importable on Python 3.13 (newer cbor2/cryptography/
# pyopenssl releases broke it when this was written).
WHISPER_LOCALSTACK_REQUIREMENTS=(
  'localstack-core[runtime]' 'cbor2<6' 'cryptography<44' 'pyopenssl<24.3' service_identity
)

# python313_bin: pyenv's Python 3.13 (LocalStack needs >= 3.10; 3.13 is the one tried here).
python313_bin() { pyenv_python 3.13.0 WHISPER_PYTHON313 python3.13; }

# localstack_venv: print the path of a venv with LocalStack installed, installing it on first use.
# The venv is rebuilt when the requirement list or the interpreter changes.
localstack_venv() {
  local py key
  py="$(python313_bin)" || return 1
  key="$(printf '%s\n' "${WHISPER_LOCALSTACK_REQUIREMENTS[@]}" "$py" | sha256sum | cut -c1-16)"
  cached_venv "$WHISPER_CACHE_DIR/localstack-venv" "$py" "$key" localstack 'import localstack.runtime.main' \
    "${WHISPER_LOCALSTACK_REQUIREMENTS[@]}"
}

# localstack_start DIR PORT BUCKET: start LocalStack (S3 only) for DIR on 127.0.0.1:PORT, wait
# until S3 answers, and create BUCKET. Credentials are LocalStack's `test`/`test`; path-style.
localstack_start() {
  local dir port=$2 bucket=$3 venv
  dir="$(abs_path "$1")"
  [[ "$port" =~ ^[0-9]+$ ]] || { err "bad port '$port'"; return 1; }
  venv="$(localstack_venv)" || return 1
  mkdir -p "$dir/state" || { err "cannot create $dir"; return 1; }
  log "starting LocalStack S3 on 127.0.0.1:$port ($dir)"
  # hypercorn: the default gateway listens on 0.0.0.0. setsid: its own process group, so
  # localstack_stop ends its workers with it.
  (cd "$dir" && exec setsid env GATEWAY_SERVER=hypercorn GATEWAY_LISTEN="127.0.0.1:$port" \
    SERVICES=s3 S3_SKIP_SIGNATURE_VALIDATION=0 DISABLE_EVENTS=1 SKIP_SSL_CERT_DOWNLOAD=1 \
    LOCALSTACK_VOLUME_DIR="$dir/state" FILESYSTEM_ROOT="$dir/state" \
    "$venv/bin/python" -m localstack.runtime.main) </dev/null >"$dir/localstack.log" 2>&1 &
  printf '%s\n' "$!" >"$dir/localstack.pid"
  if ! wait_until "$WHISPER_WAIT_TIMEOUT" "LocalStack S3 on port $port" \
    curl -fsS -o /dev/null "http://127.0.0.1:$port/_localstack/health"; then
    tail_log "$dir/localstack.log"
    return 1
  fi
  # Bucket creation through LocalStack's own endpoint (an unsigned PUT is refused with
  # signature validation on, so sign it with curl's built-in SigV4).
  if ! curl -fsS -o /dev/null -X PUT --user test:test --aws-sigv4 "aws:amz:us-east-1:s3" \
    "http://127.0.0.1:$port/$bucket"; then
    err "could not create bucket $bucket in LocalStack"
    tail_log "$dir/localstack.log"
    return 1
  fi
}

# localstack_stop DIR: stop the LocalStack serving DIR (SIGTERM to its group, SIGKILL after 10 s).
localstack_stop() {
  local dir pid i
  dir="$(abs_path "$1")"
  pid="$(cat "$dir/localstack.pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
}
