#include "CBuildInfo.h"

// Weak: BuildInfoGenerated.c, when a build script wrote it, replaces these at link time.
__attribute__((weak)) const char *whisper_build_commit(void) { return "unknown"; }
__attribute__((weak)) const char *whisper_build_date(void) { return "unknown"; }
