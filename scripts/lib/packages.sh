# shellcheck shell=bash
# Debian packages: WHISPER_APT_PACKAGES (what the project needs) and ensure_packages.
# Sourced by scripts/lib.sh after common.sh; do not run it.

# Debian packages the project needs: C libraries for the build (libcurl: the attachment GC's
# S3 deletes), the two servers, curl, and promtool (package prometheus: the deploy/prometheus
# checks of Tests/interop/test_deploy.py; where systemd runs, the package also starts a Prometheus
# server on :9090 — `systemctl disable --now prometheus` if that port is wanted).
WHISPER_APT_PACKAGES=(
  libpq-dev libhiredis-dev libsodium-dev libssl-dev zlib1g-dev libcurl4-openssl-dev pkg-config
  postgresql redis-server
  curl prometheus
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
