#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>

// Function-like macros do not import into Swift: wrap them once here.
static inline long whisper_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long whisper_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long whisper_SSL_MODE_non_blocking_defaults(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
}
// Server hardening: no client-initiated renegotiation (a CPU-exhaustion vector), no TLS
// compression (CRIME). SSL_OP_* are built with SSL_OP_BIT, which does not import.
static inline uint64_t whisper_SSL_hardening_options(void) {
    return SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION;
}
