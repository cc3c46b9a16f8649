# shellcheck shell=bash
# write_build_info [commit] [date]: writes Sources/CBuildInfo/BuildInfoGenerated.c (git-ignored)
# with the commit and build date `whisper-server --version` and `whisper_build_info` report
# (docs/operations.md "Version and build info"). Defaults: the checkout's HEAD (short, "-dirty"
# with uncommitted changes to tracked files) and now in UTC (SOURCE_DATE_EPOCH when set). The
# file is rewritten only when the commit changes, so a rebuild of the same commit relinks nothing;
# the date is then that of the first build of the commit here. Sets WHISPER_BUILD_COMMIT to the
# commit written. Needs only bash (the container build sources this file alone, with
# WHISPER_REPO_ROOT set and no git).

write_build_info() {
  local file="$WHISPER_REPO_ROOT/Sources/CBuildInfo/BuildInfoGenerated.c"
  local commit="${1:-}" date="${2:-}"
  if [[ -z "$commit" ]]; then
    commit="$(git -C "$WHISPER_REPO_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    if [[ "$commit" != unknown ]] && ! git -C "$WHISPER_REPO_ROOT" diff --quiet HEAD -- 2>/dev/null; then
      commit+="-dirty"
    fi
  fi
  [[ "$commit" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "build commit '$commit': letters, digits, . _ - only" >&2; return 1; }
  WHISPER_BUILD_COMMIT="$commit"
  if [[ -f "$file" ]] && grep -qF "return \"$commit\";" "$file"; then return 0; fi
  if [[ -z "$date" ]]; then
    date="$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +%Y-%m-%dT%H:%M:%SZ)"
  fi
  [[ "$date" =~ ^[0-9T:Z.+-]+$ || "$date" == unknown ]] || { echo "build date '$date': ISO 8601 expected" >&2; return 1; }
  cat >"$file" <<C
// Written by scripts/lib/buildinfo.sh (write_build_info); not in git. Overrides BuildInfoDefaults.c.
#include "CBuildInfo.h"

const char *whisper_build_commit(void) { return "$commit"; }
const char *whisper_build_date(void) { return "$date"; }
C
}
