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
# Tests/interop/test_deploy.py), from Debian's prometheus package. amtool_dir: the same for
# `amtool` (deploy/prometheus/alertmanager.yml), from prometheus-alertmanager.
promtool_dir() { deb_tool_dir prometheus promtool; }
amtool_dir() { deb_tool_dir prometheus-alertmanager amtool; }

# deb_tool_dir PACKAGE TOOL: print a folder holding TOOL, from the PATH or else taken from the
# Debian PACKAGE alone (`apt-get download` + `dpkg-deb -x` into the cache): installing these
# packages would start their servers wherever systemd runs (Prometheus on :9090, the admin
# listener's default port).
deb_tool_dir() {
  local package=$1 name=$2 dir tmp
  if command -v "$name" >/dev/null 2>&1; then
    dirname "$(command -v "$name")"
    return 0
  fi
  dir="$WHISPER_CACHE_DIR/$name"
  if [[ ! -x "$dir/usr/bin/$name" ]]; then
    tmp="$(mktemp -d)"
    if ! (cd "$tmp" && apt-get download "$package") >/dev/null 2>&1; then
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null >/dev/null 2>&1
      (cd "$tmp" && apt-get download "$package") >/dev/null 2>&1 || {
        err "apt-get download $package failed (needed for $name)"; rm -rf "$tmp"; return 1; }
    fi
    mkdir -p "$dir" && dpkg-deb -x "$tmp/${package}"_*.deb "$dir" || { rm -rf "$tmp"; return 1; }
    rm -rf "$tmp"
  fi
  printf '%s\n' "$dir/usr/bin"
}
