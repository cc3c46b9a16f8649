import WhisperHTTP
import WhisperWebSocket

/// libFuzzer target `http`: bytes from a client into `HTTPRequestParser` (request head, then
/// Content-Length framed bodies, pipelined requests), as the HTTP listener feeds it, then each
/// request through the router and the WebSocket upgrade checks (RFC 6455 §4.2.1, the
/// permessage-deflate offer parser and negotiation).
///
/// Input layout: byte 0 is the chunk size (1–64) the rest is fed in, the rest is the wire.
/// Invariants: no crash or hang; every request's head and body stay within `HTTPLimits`; the
/// parser never hands out more body bytes than it was fed; after an error it stays failed; and
/// the request target's query and the route match never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first else { return 0 }
    let chunk = Int(first % 64) + 1
    let wire = input[1...]
    let limits = HTTPLimits(maxHeaderBytes: 2048, maxHeaderCount: 16, defaultMaxBodyBytes: 4096)
    var parser = HTTPRequestParser(limits: limits)
    var fed = 0
    var bodyBytes = 0
    var failed = false
    var start = wire.startIndex
    while start < wire.endIndex {
        let end = min(start + chunk, wire.endIndex)
        parser.feed(wire[start..<end])
        fed += end - start
        start = end
        drain: while true {
            switch parser.next() {
            case .needMoreData:
                precondition(!failed, "a failed parser asked for more data")
                break drain
            case .error:
                failed = true
                break drain
            case .request(let request):
                precondition(!failed, "a failed parser produced a request")
                precondition(request.body.count <= limits.defaultMaxBodyBytes, "body over its cap")
                precondition(request.head.headers.count <= limits.maxHeaderCount, "more headers than the cap")
                bodyBytes += request.body.count
                precondition(bodyBytes <= fed, "more body bytes than were fed")
                HTTPFuzzSupport.exercise(request)
            }
        }
    }
    precondition(parser.bufferedByteCount <= fed, "buffered more than was fed")
    return 0
}

enum HTTPFuzzSupport {
    static let router: HTTPRouter<Int> = {
        var router = HTTPRouter<Int>()
        // The server's route shapes (literal, parameter, greedy segments).
        try? router.add("GET", "/users/{whisperId}/keys", 1)
        try? router.add("PUT", "/backup/contacts", 2)
        try? router.add("POST", "/attachments/presign", 3)
        try? router.add("GET", "/admin/reports/{id}", 4)
        try? router.add("GET", "/attachments/{objectKey...}/download", 5)
        return router
    }()

    static func exercise(_ request: HTTPRequest) {
        _ = request.keepAlive
        _ = request.isUpgradeRequest
        _ = request.head.expectsContinue
        if let query = request.queryParameters {
            for item in query.items { _ = query.values(for: item.name) }
        }
        if case .found(_, let parameters) = router.match(method: request.method, path: request.path) {
            for item in parameters.items { precondition(!item.value.utf8.contains(0), "NUL in a path parameter") }
        }
        _ = request.headers.tokens(for: "connection")
        let headers = request.headers.fields.map { (name: $0.name, value: $0.value) }
        if case .success(let upgrade) = WebSocketHandshake.validate(method: request.method, headers: headers),
           let agreement = PerMessageDeflate.negotiate(offers: upgrade.extensionOffers) {
            let bits = agreement.parameters.clientMaxWindowBits
            precondition((8...15).contains(bits), "negotiated client_max_window_bits \(bits) outside 8...15")
            precondition((8...15).contains(agreement.parameters.serverMaxWindowBits), "server_max_window_bits outside 8...15")
            precondition(!agreement.responseValue.utf8.contains { $0 == 13 || $0 == 10 }, "CR or LF in a response header")
        }
    }
}
