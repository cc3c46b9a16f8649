/// Incremental, resumable HTTP/1.1 request parser (RFC 9112) for Content-Length framed requests.
///
/// The driver feeds whatever it read and calls `next(bodyLimit:)` until it answers `.needMoreData`.
/// Parse state lives here, so a head split over many reads is scanned once: `scanned` remembers how
/// far the search for the empty line got. The body cap is chosen per request from its head and
/// checked against Content-Length before a single body byte is buffered.
///
/// Line endings: only CRLF. A bare LF or a bare CR anywhere in the head is `.invalidLineEnding`
/// (RFC 9112 §2.2 lets a recipient accept bare LF; we refuse it so our framing can never differ
/// from a stricter or looser hop in front of us). Empty lines (CRLF) before a request-line are
/// skipped as RFC 9112 §2.2 recommends.
///
/// Memory: the buffer holds what was fed and not yet consumed. The head scan never looks past
/// `maxHeaderBytes`; the driver should stop reading while a full request is pending
/// (`bufferedByteCount`) so pipelined bytes cannot pile up.
public struct HTTPRequestParser: Sendable {
    enum State: Sendable {
        /// Looking for the end of a head; `scanned` bytes after `readIndex` are known not to end it.
        case head(scanned: Int)
        /// Head done; waiting for `length` body bytes.
        case body(HTTPRequestHead, length: Int)
        case failed(HTTPParseError)
    }

    public let limits: HTTPLimits
    var buffer: [UInt8] = []
    /// First unconsumed byte of `buffer`; bytes before it are dropped on compaction.
    var readIndex = 0
    private(set) var state: State = .head(scanned: 0)

    /// Consumed bytes are kept until at least this many pile up (and they are at least half the
    /// buffer), so compaction costs O(1) amortized per byte instead of one shift per request.
    static let compactionThreshold = 4096

    public init(limits: HTTPLimits = .default) {
        self.limits = limits
    }

    /// Bytes fed and not yet returned as part of a request.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// The head of a request whose body is still arriving, e.g. to answer `100 Continue`
    /// (RFC 9110 §10.1.1) when `expectsContinue` is set.
    public var pendingHead: HTTPRequestHead? {
        if case .body(let head, _) = state { return head }
        return nil
    }

    /// Appends bytes read from the peer. Ignored once the parser has failed.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if case .failed = state { return }
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// The next request, using `limits.defaultMaxBodyBytes` as the body cap.
    public mutating func next() -> HTTPParseResult {
        let cap = limits.defaultMaxBodyBytes
        return next(bodyLimit: { _ in cap })
    }

    /// The next complete request. `bodyLimit` is asked once per request, after its head is valid
    /// and before its body is buffered; a Content-Length above it fails with `.bodyTooLarge` (413).
    public mutating func next(bodyLimit: (HTTPRequestHead) -> Int) -> HTTPParseResult {
        switch state {
        case .failed(let error):
            return .error(error)
        case .body(let head, let length):
            return takeBody(head: head, length: length)
        case .head(let scanned):
            switch scanHead(alreadyScanned: scanned) {
            case .incomplete(let scanned):
                state = .head(scanned: scanned)
                return .needMoreData
            case .failure(let error):
                return fail(error)
            case .complete(let headEnd):
                return finishHead(end: headEnd, bodyLimit: bodyLimit)
            }
        }
    }

    /// Hands over every buffered, unconsumed byte (e.g. WebSocket frames that arrived with the
    /// upgrade request) and resets the parser to an empty state.
    public mutating func takeRemainingBytes() -> [UInt8] {
        let rest = Array(buffer[readIndex...])
        buffer = []
        readIndex = 0
        state = .head(scanned: 0)
        return rest
    }

    // MARK: - Steps

    private mutating func finishHead(end: Int, bodyLimit: (HTTPRequestHead) -> Int) -> HTTPParseResult {
        let decoded = buffer.withUnsafeBytes { raw in
            HTTPHeadDecoder.decode(UnsafeRawBufferPointer(rebasing: raw[readIndex..<end]), limits: limits)
        }
        switch decoded {
        case .failure(let error):
            return fail(error)
        case .success(let head):
            readIndex = end
            let cap = max(0, bodyLimit(head))
            // RFC 9110 §15.5.14: refuse before reading the content.
            guard head.contentLength <= cap else { return fail(.bodyTooLarge(limit: cap)) }
            return takeBody(head: head, length: head.contentLength)
        }
    }

    private mutating func takeBody(head: HTTPRequestHead, length: Int) -> HTTPParseResult {
        guard bufferedByteCount >= length else {
            state = .body(head, length: length)
            return .needMoreData
        }
        let bodyEnd = readIndex + length
        let body = length == 0 ? [] : Array(buffer[readIndex..<bodyEnd])
        readIndex = bodyEnd
        state = .head(scanned: 0)
        return .request(HTTPRequest(head: head, body: body))
    }

    private mutating func fail(_ error: HTTPParseError) -> HTTPParseResult {
        state = .failed(error)
        buffer = []
        readIndex = 0
        return .error(error)
    }

    private mutating func compactIfUseful() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 4 * Self.compactionThreshold)
            readIndex = 0
        } else if readIndex >= Self.compactionThreshold, readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}
