# shellcheck shell=bash
# libFuzzer targets (Tests/Fuzz): fuzz_targets, fuzz_build, fuzz_run. Used by scripts/fuzz and
# the fuzz stage of scripts/test. Sourced by scripts/lib.sh; do not run it.
#
# The fuzzed modules are compiled straight with swiftc (-sanitize=fuzzer,address), each into one
# object under .build-fuzz/, and every target is linked by hand against the objects it needs:
# the pure modules (WhisperProtocol, WhisperHTTP, WhisperWebSocket, WhisperOps) build in well
# under a minute this way, where SwiftPM would instrument the whole graph. A module or target is
# rebuilt only when one of its inputs is newer than its output.

FUZZ_DIR="${WHISPER_FUZZ_DIR:-$WHISPER_REPO_ROOT/.build-fuzz}"
FUZZ_SOURCES="$WHISPER_REPO_ROOT/Tests/Fuzz"
FUZZ_SWIFTFLAGS=(-O -g "-sanitize=fuzzer,address" -swift-version 6 -parse-as-library -use-ld=lld)
FUZZ_CFLAGS=(-O1 -g "-fsanitize=fuzzer-no-link,address")

# fuzz_targets: the target names, one per line.
fuzz_targets() { printf '%s\n' websocket http protocol url redis; }

# The parts of each target: Swift modules (in dependency order), extra source files compiled
# into the target itself, C module folders (-I), link flags, and libFuzzer's -max_len.
_fuzz_spec() {
  local s="$WHISPER_REPO_ROOT/Sources"
  case "$1" in
    websocket)
      FUZZ_MODULES=(WhisperProtocol WhisperWebSocket); FUZZ_EXTRA=("$FUZZ_SOURCES/Targets/WebSocketFuzz.swift")
      FUZZ_CMODULES=(CZlib COpenSSL); FUZZ_LIBS=(-lz -lcrypto); FUZZ_MAX_LEN=16384 ;;
    http)
      FUZZ_MODULES=(WhisperProtocol WhisperHTTP WhisperWebSocket); FUZZ_EXTRA=("$FUZZ_SOURCES/Targets/HTTPFuzz.swift")
      FUZZ_CMODULES=(CZlib COpenSSL); FUZZ_LIBS=(-lz -lcrypto); FUZZ_MAX_LEN=8192 ;;
    protocol)
      FUZZ_MODULES=(WhisperProtocol); FUZZ_EXTRA=("$FUZZ_SOURCES/Targets/ProtocolFuzz.swift")
      FUZZ_CMODULES=(); FUZZ_LIBS=(); FUZZ_MAX_LEN=8192 ;;
    url)
      # SigV4 lives in WhisperServices (libsodium, OpenSSL, all use cases): only its three files
      # are compiled into the target.
      FUZZ_MODULES=(WhisperProtocol WhisperHTTP WhisperOps)
      FUZZ_EXTRA=("$FUZZ_SOURCES/Targets/URLFuzz.swift" "$s/WhisperServices/Attachments/SigV4.swift"
        "$s/WhisperServices/Crypto/HMACSHA256.swift" "$s/WhisperServices/Crypto/HMACSHA1.swift")
      FUZZ_CMODULES=(COpenSSL); FUZZ_LIBS=(-lcrypto); FUZZ_MAX_LEN=2048 ;;
    redis)
      # hiredis parses RESP; the Swift side is RedisValue(reply:), compiled into the target so
      # its internal initializer is reachable.
      FUZZ_MODULES=(); FUZZ_EXTRA=("$FUZZ_SOURCES/Targets/RedisFuzz.swift" "$s/WhisperStorage/Redis/RedisValue.swift" "$s/WhisperStorage/Redis/RedisReply.swift")
      FUZZ_CMODULES=(CHiredis); FUZZ_LIBS=(-lhiredis); FUZZ_MAX_LEN=4096 ;;
    *) err "unknown fuzz target '$1' (targets: $(fuzz_targets | tr '\n' ' '))"; return 1 ;;
  esac
}

# _fuzz_stale OUTPUT INPUT...: true when OUTPUT is missing or older than any INPUT (files or
# folders) or than this file (which holds the flags).
_fuzz_stale() {
  local out=$1
  shift
  [[ -e "$out" ]] || return 0
  [[ -n "$(find "$@" "${BASH_SOURCE[0]}" -newer "$out" \( -name '*.swift' -o -name '*.c' -o -name '*.h' \
    -o -name '*.o' -o -name fuzz.sh \) -print -quit 2>/dev/null)" ]]
}

# _fuzz_c_module NAME SOURCE.c: the C target Sources/NAME as a clang module with one object,
# $FUZZ_DIR/obj/NAME.o (CBuildInfo: only its weak "unknown" defaults, which a fuzzer needs).
_fuzz_c_module() {
  local name=$1 source=$2 out="$FUZZ_DIR/obj"
  _fuzz_stale "$out/$name.o" "$WHISPER_REPO_ROOT/Sources/$name" || return 0
  mkdir -p "$out/$name"
  printf 'module %s {\n  umbrella header "%s"\n  export *\n}\n' \
    "$name" "$WHISPER_REPO_ROOT/Sources/$name/include/$name.h" >"$out/$name/module.modulemap"
  clang "${FUZZ_CFLAGS[@]}" -I "$WHISPER_REPO_ROOT/Sources/$name/include" \
    -c "$WHISPER_REPO_ROOT/Sources/$name/$source" -o "$out/$name.o" || return 1
  touch "$out/$name.o"
}

# _fuzz_module NAME: WhisperOps needs CLinux and CBuildInfo (C) and WhisperProtocol; the others
# as in Package.swift.
_fuzz_module() {
  local name=$1 src="$WHISPER_REPO_ROOT/Sources/$1" out="$FUZZ_DIR/obj" deps=() cflags=()
  case "$name" in
    WhisperProtocol) ;;
    WhisperHTTP) deps=("$out/WhisperProtocol.o") ;;
    WhisperWebSocket) deps=("$out/WhisperProtocol.o"); cflags=(-I "$WHISPER_REPO_ROOT/Sources/CZlib" -I "$WHISPER_REPO_ROOT/Sources/COpenSSL") ;;
    WhisperOps)
      deps=("$out/WhisperProtocol.o" "$out/CLinux.o" "$out/CBuildInfo.o")
      cflags=(-I "$out/CLinux" -I "$out/CBuildInfo")
      _fuzz_c_module CLinux CLinux.c || return 1
      _fuzz_c_module CBuildInfo BuildInfoDefaults.c || return 1 ;;
  esac
  _fuzz_stale "$out/$name.o" "$src" "${deps[@]}" || return 0
  log "fuzz build: $name"
  local sources=()
  mapfile -t sources < <(find "$src" -name '*.swift' | sort)
  # touch: swiftc leaves an unchanged object file alone, which would keep it looking stale.
  swiftc "${FUZZ_SWIFTFLAGS[@]}" -wmo -module-name "$name" -I "$out" "${cflags[@]}" \
    -emit-module -emit-module-path "$out/$name.swiftmodule" -c -o "$out/$name.o" "${sources[@]}" \
    && touch "$out/$name.o"
}

# fuzz_build TARGET...: build (incrementally) the modules and binaries the targets need.
fuzz_build() {
  local target module objs cflags c
  mkdir -p "$FUZZ_DIR/obj" "$FUZZ_DIR/bin"
  for target in "$@"; do
    _fuzz_spec "$target" || return 1
    objs=()
    for module in "${FUZZ_MODULES[@]}"; do
      _fuzz_module "$module" || { err "fuzz build of $module failed"; return 1; }
      objs+=("$FUZZ_DIR/obj/$module.o")
      [[ "$module" == WhisperOps ]] && objs+=("$FUZZ_DIR/obj/CLinux.o" "$FUZZ_DIR/obj/CBuildInfo.o")
    done
    cflags=()
    for c in "${FUZZ_CMODULES[@]}"; do cflags+=(-I "$WHISPER_REPO_ROOT/Sources/$c"); done
    _fuzz_stale "$FUZZ_DIR/bin/$target" "${FUZZ_EXTRA[@]}" "${objs[@]}" || continue
    log "fuzz build: target $target"
    if ! swiftc "${FUZZ_SWIFTFLAGS[@]}" -module-name "Fuzz_$target" -I "$FUZZ_DIR/obj" "${cflags[@]}" \
      "${FUZZ_EXTRA[@]}" "${objs[@]}" "${FUZZ_LIBS[@]}" -o "$FUZZ_DIR/bin/$target"; then
      err "fuzz build of target $target failed"
      return 1
    fi
    touch "$FUZZ_DIR/bin/$target"
  done
}

# fuzz_run TARGET SECONDS: run one target for SECONDS on its committed seeds plus the corpus it
# grew before (.build-fuzz/corpus/TARGET). Crashes, timeouts, leaks and OOMs are written to
# .build-fuzz/findings/TARGET/ and make it fail. Appends a line per run to .build-fuzz/stats.
fuzz_run() {
  local target=$1 seconds=$2 log_file status=0 execs
  _fuzz_spec "$target" || return 1
  local corpus="$FUZZ_DIR/corpus/$target" seeds="$FUZZ_SOURCES/corpus/$target" findings="$FUZZ_DIR/findings/$target"
  mkdir -p "$corpus" "$findings"
  log_file="$FUZZ_DIR/logs/$target.log"
  mkdir -p "$FUZZ_DIR/logs"
  log "fuzz $target for ${seconds}s (log: $log_file)"
  # -timeout: one input taking over 10 s is a hang; -rss_limit_mb bounds memory (ASan included).
  # ASan's leak checker runs at exit and on every new input that looks leaky.
  # `time` (the bash keyword) measures the CPU the run used, for docs/security.md.
  local TIMEFORMAT='%R %U %S' times_file="$FUZZ_DIR/logs/$target.time"
  { time ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}" \
    nice -n 10 "$FUZZ_DIR/bin/$target" -max_len="$FUZZ_MAX_LEN" -timeout=10 -rss_limit_mb=2048 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus" "$seeds" >"$log_file" 2>&1; } 2>"$times_file" || status=$?
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log_file" | tail -1)"
  local wall user sys
  read -r wall user sys <"$times_file" || true
  # Columns: finished (UTC), target, wall s, CPU s (user + sys), executions, exit status.
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "${wall:-?}" \
    "$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN { printf "%.1f", u + s }')" "${execs:-0}" "$status" >>"$FUZZ_DIR/stats"
  if ((status != 0)); then
    err "fuzz target $target failed (status $status); findings in $findings"
    tail_log "$log_file" 60
    return 1
  fi
  log "fuzz $target: ${execs:-?} executions, no findings"
}
