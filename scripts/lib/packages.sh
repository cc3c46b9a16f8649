# shellcheck shell=bash
# Debian packages: WHISPER_APT_PACKAGES (what the project needs) and ensure_packages.
# Sourced by scripts/lib.sh after common.sh; do not run it.

# Debian packages the project needs: C libraries for the build (libcurl: the attachment GC's
# S3 deletes), the two servers, curl, and HAProxy (PROXY protocol in front of a relay,
# Tests/interop/test_proxy_protocol.py; not started on install). (promtool: see promtool_dir.)
WHISPER_APT_PACKAGES=(
  libpq-dev libhiredis-dev libsodium-dev libssl-dev zlib1g-dev libcurl4-openssl-dev pkg-config
  postgresql redis-server
  curl haproxy
)

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

# promtool_dir: print a folder holding `promtool` (the deploy/prometheus checks of
# Tests/interop/test_deploy.py). Only the binary is taken from Debian's prometheus package
# (`apt-get download` + `dpkg-deb -x` into the cache): installing the package would start a
# Prometheus server on :9090 wherever systemd runs, the admin listener's default port.
promtool_dir() {
  if command -v promtool >/dev/null 2>&1; then
    dirname "$(command -v promtool)"
    return 0
  fi
  local dir="$WHISPER_CACHE_DIR/promtool" tmp
  if [[ ! -x "$dir/usr/bin/promtool" ]]; then
    tmp="$(mktemp -d)"
    if ! (cd "$tmp" && apt-get download prometheus) >/dev/null 2>&1; then
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null >/dev/null 2>&1
      (cd "$tmp" && apt-get download prometheus) >/dev/null 2>&1 || {
        err "apt-get download prometheus failed (needed for promtool)"; rm -rf "$tmp"; return 1; }
    fi
    mkdir -p "$dir" && dpkg-deb -x "$tmp"/prometheus_*.deb "$dir" || { rm -rf "$tmp"; return 1; }
    rm -rf "$tmp"
  fi
  printf '%s\n' "$dir/usr/bin"
}
