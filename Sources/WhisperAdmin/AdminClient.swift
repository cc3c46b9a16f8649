import CCurl

/// A blocking HTTP client for the server's admin listener, on libcurl's easy interface:
/// `whisper-bench` reads `/metrics` with it at the edges of a measurement window, and
/// `whisper-server admin …` calls the admin API (docs/operations.md "Admin CLI"). It runs on
/// a tool's own thread, never on an event loop. http:// and https:// with host names (libcurl
/// resolves them); over https the certificate is always verified against the URL's host, with
/// the system's CAs or `caFile`. No redirects are followed. The bearer token travels only in
/// its header: no error text names it.
public struct AdminClient: Sendable {
    public let endpoint: AdminEndpoint
    public var timeoutSeconds: Int
    /// A PEM bundle to verify the admin listener's certificate with (instead of the system's).
    public var caFile: String?
    /// A larger answer is refused (`tooLarge`) rather than buffered without end.
    static let maxResponseBytes = 64 << 20

    /// libcurl's global set-up is not thread-safe: done once, before the first request.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(endpoint: AdminEndpoint, timeoutSeconds: Int = 5, caFile: String? = nil) {
        self.endpoint = endpoint
        self.timeoutSeconds = timeoutSeconds
        self.caFile = caFile
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No answer: the name did not resolve, the connection or the TLS handshake (certificate)
        /// failed, the time ran out. libcurl's reason, naming the URL's host.
        case unreachable(String)
        /// An answer with a status other than 200 (`get` only).
        case status(Int)
        /// An answer larger than `maxResponseBytes`.
        case tooLarge

        public var description: String {
            switch self {
            case .unreachable(let why): return "admin listener unreachable: \(why)"
            case .status(let code): return "admin status \(code)"
            case .tooLarge: return "admin response larger than \(AdminClient.maxResponseBytes) bytes"
            }
        }
    }

    /// A response: its status and body (whatever the status).
    public struct Response: Sendable, Equatable {
        public let status: Int
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The body of `GET path`; any status but 200 is `Failure.status`.
    public func get(_ path: String) throws(Failure) -> String {
        let response = try send("GET", path, bearer: nil)
        guard response.status == 200 else { throw .status(response.status) }
        return response.text
    }

    /// `method path` with optional bearer token and JSON body; answers any status.
    public func send(_ method: String, _ path: String, bearer: String?, json body: [UInt8]? = nil) throws(Failure) -> Response {
        guard Self.globalInit, let handle = curl_easy_init() else { throw .unreachable("libcurl did not initialise") }
        defer { curl_easy_cleanup(handle) }
        var lines = ["Expect:"]  // no 100-continue round trip before a body
        if let bearer { lines.append("Authorization: Bearer \(bearer)") }
        if body != nil { lines.append("Content-Type: application/json") }
        var headers: UnsafeMutablePointer<curl_slist>?
        for line in lines { headers = curl_slist_append(headers, line) }
        defer { curl_slist_free_all(headers) }
        let sink = ResponseSink()
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        defer { errorText.deallocate() }
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let result: CURLcode = withExtendedLifetime(sink) {
            guard configure(handle, method: method, url: endpoint.url(path), headers: headers, body: body),
                  whisper_curl_setopt_write_function(handle, collectResponse) == CURLE_OK,
                  whisper_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()) == CURLE_OK,
                  whisper_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorText) == CURLE_OK
            else { return CURLE_FAILED_INIT }
            return curl_easy_perform(handle)
        }
        if sink.overflowed { throw .tooLarge }
        guard result == CURLE_OK else {
            let detail = String(cString: errorText)
            throw .unreachable("\(endpoint): " + (detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail))
        }
        var status = 0
        guard whisper_curl_response_code(handle, &status) == CURLE_OK, status > 0 else {
            throw .unreachable("\(endpoint): no HTTP status")
        }
        return Response(status: status, body: sink.bytes)
    }

    /// The transfer's options; false when libcurl refused one.
    private func configure(_ handle: UnsafeMutableRawPointer, method: String, url: String,
                           headers: UnsafeMutablePointer<curl_slist>?, body: [UInt8]?) -> Bool {
        var ok = whisper_curl_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
            && whisper_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutSeconds * 1000) == CURLE_OK
            // A stall, not the whole exchange, is what times out (as the receive timeout of the
            // socket client before it did): a busy node's large `/metrics` may take longer.
            && whisper_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, timeoutSeconds)) == CURLE_OK
            && whisper_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers) == CURLE_OK
        if let caFile { ok = ok && whisper_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) == CURLE_OK }
        if method != "GET" { ok = ok && whisper_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK }
        if let body {
            // COPYPOSTFIELDS: libcurl keeps its own copy; CUSTOMREQUEST keeps the method.
            ok = ok && whisper_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count) == CURLE_OK
                && body.withUnsafeBufferPointer { bytes in
                    bytes.baseAddress.map {
                        whisper_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) == CURLE_OK
                    } ?? (whisper_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "") == CURLE_OK)
                }
        }
        return ok
    }
}

/// The response body as libcurl hands it over, up to `AdminClient.maxResponseBytes`.
private final class ResponseSink {
    var bytes: [UInt8] = []
    var overflowed = false
}

/// libcurl's write callback (`context` is the transfer's `ResponseSink`): one byte past the
/// cap aborts the transfer (answering less than it was given is libcurl's abort signal).
private func collectResponse(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                             _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow, total <= AdminClient.maxResponseBytes - sink.bytes.count else {
        sink.overflowed = true
        return 0
    }
    guard let data, total > 0 else { return total }
    data.withMemoryRebound(to: UInt8.self, capacity: total) { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: total)) }
    return total
}
