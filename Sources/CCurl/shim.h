#include <curl/curl.h>
#include <string.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic: Swift cannot call
// them, so each argument type gets one typed wrapper here.
static inline CURLcode whisper_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode whisper_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode whisper_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLMcode whisper_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
// A write callback of the caller's own (a growing buffer with a cap, `AdminClient`); the
// function pointer is one more argument type of the variadic setopt.
static inline CURLcode whisper_curl_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
// Discards a response body (libcurl writes it to stdout by default).
static size_t whisper_curl_discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}
static inline CURLcode whisper_curl_discard_body(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, whisper_curl_discard);
}
// A response body kept up to a fixed size (provider error bodies are small JSON objects);
// the rest is read and dropped, never buffered without bound.
typedef struct {
    size_t count;
    char bytes[4096];
} whisper_curl_body;
static size_t whisper_curl_collect(char *data, size_t size, size_t count, void *context) {
    whisper_curl_body *body = (whisper_curl_body *)context;
    size_t total = size * count;
    size_t room = sizeof(body->bytes) - body->count;
    size_t kept = total < room ? total : room;
    memcpy(body->bytes + body->count, data, kept);
    body->count += kept;
    return total;
}
static inline CURLcode whisper_curl_collect_body(CURL *handle, whisper_curl_body *body) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, whisper_curl_collect);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_WRITEDATA, (void *)body);
}
static inline CURLcode whisper_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
// Seconds from a response's Retry-After header (0 when absent).
static inline CURLcode whisper_curl_retry_after(CURL *handle, curl_off_t *seconds) {
    return curl_easy_getinfo(handle, CURLINFO_RETRY_AFTER, seconds);
}
// The HTTP version a transfer used (CURL_HTTP_VERSION_2_0 for HTTP/2).
static inline CURLcode whisper_curl_http_version(CURL *handle, long *version) {
    return curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, version);
}
// CURLMsg's result sits in an anonymous union.
static inline CURLcode whisper_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}
