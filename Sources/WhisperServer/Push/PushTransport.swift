import CCurl
import WhisperServices

/// libcurl settings every provider request shares (docs/architecture.md "Push"): HTTPS only,
/// HTTP/2 negotiated by ALPN, the peer's certificate always verified (against the system's CAs
/// plus `WHISPER_PUSH_CA_FILE`), a whole-request timeout, no signals.
struct PushTransport: Sendable {
    /// libcurl's global set-up is not thread-safe: done once, before any sender starts.
    static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    static let systemCAPath = "/etc/ssl/certs"

    let caFile: String?
    let timeoutSeconds: Int

    /// Configures `handle` for `request`; the header list must outlive the transfer (the
    /// caller frees it). False when libcurl refused an option.
    func configure(_ handle: UnsafeMutableRawPointer, _ request: PushRequest,
                   headers: UnsafeMutablePointer<curl_slist>?) -> Bool {
        var ok = whisper_curl_setopt_string(handle, CURLOPT_URL, request.url) == CURLE_OK
            && whisper_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https") == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_PIPEWAIT, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutSeconds * 1000) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count) == CURLE_OK
            && whisper_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers) == CURLE_OK
        ok = ok && request.body.withUnsafeBufferPointer { body in
            // COPYPOSTFIELDS: libcurl keeps its own copy, so the array may go.
            body.baseAddress.map { whisper_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) == CURLE_OK }
                ?? (whisper_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "") == CURLE_OK)
        }
        if let caFile {
            ok = ok && whisper_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) == CURLE_OK
                && whisper_curl_setopt_string(handle, CURLOPT_CAPATH, Self.systemCAPath) == CURLE_OK
        }
        return ok
    }

    /// The request's header lines as a libcurl list (free with `curl_slist_free_all`).
    static func headerList(_ request: PushRequest) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in request.headers { list = curl_slist_append(list, line) }
        return list
    }

    struct Answer {
        let status: Int
        let body: [UInt8]
    }

    /// A request that got no answer: libcurl's code for why.
    struct Failure: Error {
        let code: CURLcode
        /// A retry cannot mend it (the endpoint's certificate, the URL).
        var isPermanent: Bool { PushSenderThread.isPermanent(code) }
    }

    /// One blocking request (the FCM OAuth token).
    func perform(_ request: PushRequest) -> Result<Answer, Failure> {
        guard Self.globalInit, let handle = curl_easy_init() else { return .failure(Failure(code: CURLE_FAILED_INIT)) }
        defer { curl_easy_cleanup(handle) }
        let headers = Self.headerList(request)
        defer { curl_slist_free_all(headers) }
        let body = UnsafeMutablePointer<whisper_curl_body>.allocate(capacity: 1)
        defer { body.deallocate() }
        body.pointee.count = 0
        guard configure(handle, request, headers: headers), whisper_curl_collect_body(handle, body) == CURLE_OK else {
            return .failure(Failure(code: CURLE_FAILED_INIT))
        }
        let result = curl_easy_perform(handle)
        guard result == CURLE_OK else { return .failure(Failure(code: result)) }
        var status = 0
        guard whisper_curl_response_code(handle, &status) == CURLE_OK else { return .failure(Failure(code: CURLE_GOT_NOTHING)) }
        return .success(Answer(status: status, body: PushTransport.bytes(of: body)))
    }

    static func bytes(of body: UnsafeMutablePointer<whisper_curl_body>) -> [UInt8] {
        let count = min(body.pointee.count, MemoryLayout.size(ofValue: body.pointee.bytes))
        return withUnsafeBytes(of: &body.pointee.bytes) { Array($0.prefix(count)) }
    }
}
