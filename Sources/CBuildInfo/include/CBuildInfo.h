#ifndef WHISPER_CBUILDINFO_H
#define WHISPER_CBUILDINFO_H

// What this binary was built from (docs/operations.md "Version and build info"). The defaults
// in BuildInfoDefaults.c are weak and answer "unknown"; scripts/lib/buildinfo.sh writes
// BuildInfoGenerated.c (git-ignored) with strong definitions before scripts/run, scripts/test
// and the container build compile, so a clean clone's plain `swift build` still builds. A C file
// rather than a generated Swift one: changing it recompiles one object and relinks, nothing else.

/// The git commit (short hash, "-dirty" when the tree had changes), or "unknown".
const char *whisper_build_commit(void);
/// When it was built, ISO 8601 UTC (SOURCE_DATE_EPOCH when set), or "unknown".
const char *whisper_build_date(void);

#endif
