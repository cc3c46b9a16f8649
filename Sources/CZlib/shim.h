#include <zlib.h>

// deflateInit2/inflateInit2 are function-like macros and do not import into Swift.
static inline int whisper_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
static inline int whisper_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
