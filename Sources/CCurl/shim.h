#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic: Swift cannot call them, so each
// argument type gets one typed wrapper here.
static inline CURLcode whisper_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode whisper_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
// Discards a response body (libcurl writes it to stdout by default).
static size_t whisper_curl_discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}
static inline CURLcode whisper_curl_discard_body(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, whisper_curl_discard);
}
static inline CURLcode whisper_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
