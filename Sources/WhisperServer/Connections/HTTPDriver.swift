import WhisperHTTP
import WhisperRuntime
import WhisperServices

/// Drives one HTTP/1.1 connection: feeds the incremental parser, answers requests in order
/// (a pipelined request waits until the one before it is answered, even when that answer
/// comes back asynchronously from PostgreSQL or Redis), and hands the socket to a
/// `WebSocketDriver` on a successful upgrade at `/ws`. (A driver executes protocol state
/// against one socket; "session" in this code base means a login session only.)
final class HTTPDriver: ConnectionDelegate {
    let connection: Connection
    let listener: ListenerKind
    private unowned let context: LoopContext
    private var parser: HTTPRequestParser
    private var awaitingResponse = false
    private var closing = false
    /// When the first byte of the request being received arrived (0 = between requests).
    private var requestStartedAt: UInt64 = 0
    private var lastActivity: UInt64
    /// The answer decided from the head of the request being parsed (`RouteTable.admit`): a
    /// refused admin token, or the 404/405 of a body no route takes. A declared body is then not
    /// read, so the connection closes after it.
    private var refusedHead: HTTPResponse?

    init(connection: Connection, listener: ListenerKind, context: LoopContext) {
        self.connection = connection
        self.listener = listener
        self.context = context
        self.parser = HTTPRequestParser(limits: context.shared.httpLimits)
        self.lastActivity = connection.loop.now
    }

    /// Who is asking, for rate limits; formatted once per connection.
    private(set) lazy var client = ClientRef(ip: connection.peer.ip,
                                             connection: ConnectionRef(node: context.shared.nodeId, connection: connection.id))

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        lastActivity = connection.loop.now
        if requestStartedAt == 0 { requestStartedAt = lastActivity }
        parser.feed(bytes)
        processBuffered()
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        if case .proxyHeader(let error) = reason { context.shared.metrics.connectionRefused(reason: error.metricReason) }
        context.httpDriverClosed(self)
    }

    /// Answers every complete buffered request, one at a time.
    private func processBuffered() {
        while !awaitingResponse, !closing, !connection.isClosed {
            let shared = context.shared
            refusedHead = nil
            switch parser.next(bodyLimit: { [self] head in
                switch shared.routes(for: listener).admit(head, client: client, context: context) {
                case .read(let maxBodyBytes):
                    return maxBodyBytes
                case .refuse(let response):
                    refusedHead = response
                    return 0
                }
            }) {
            case .needMoreData:
                if parser.bufferedByteCount == 0 { requestStartedAt = 0 }
                return
            case .error(let error):
                if case .bodyTooLarge = error, let refusedHead {
                    respond(refusedHead, keepAlive: false, version: .http1_1)
                } else {
                    respond(.parseError(error), keepAlive: false, version: .http1_1)
                }
                return
            case .request(let request):
                requestStartedAt = parser.bufferedByteCount > 0 ? connection.loop.now : 0
                if let refusedHead {
                    respond(refusedHead, keepAlive: request.keepAlive && !shared.isDraining, version: request.version)
                } else {
                    handle(request)
                }
            }
        }
    }

    private func handle(_ request: HTTPRequest) {
        if listener == .public, request.path == "/ws", request.method == "GET" {
            upgrade(request)
            return
        }
        awaitingResponse = true
        let keepAlive = request.head.keepAlive && !context.shared.isDraining
        context.shared.routes(for: listener).dispatch(request, client: client, context: context) { [self] response in
            awaitingResponse = false
            respond(response, keepAlive: keepAlive, version: request.version)
            processBuffered()
        }
    }

    private func respond(_ response: HTTPResponse, keepAlive: Bool, version: HTTPVersion) {
        guard !connection.isClosed else { return }
        context.shared.metrics.httpRequest(listener: listener, status: response.status.code)
        connection.write(response.serialized(closeConnection: !keepAlive, requestVersion: version))
        if !keepAlive {
            closing = true
            connection.closeWhenFlushed()
        }
    }

    private func upgrade(_ request: HTTPRequest) {
        switch WebSocketUpgrade.accept(request, configuration: context.shared.webSocketConfiguration, now: connection.loop.now) {
        case .refused(let response):
            respond(response, keepAlive: false, version: request.version)
        case .accepted(let responseBytes, let state):
            connection.write(responseBytes)
            let session = WebSocketDriver(connection: connection, state: state, context: context)
            connection.delegate = session
            context.httpDriverUpgraded(self, to: session)
            let leftover = parser.takeRemainingBytes()
            if !leftover.isEmpty { session.receive(leftover) }
        }
    }

    /// Called about once a second: 408 for a request that is taking too long to arrive,
    /// and a quiet close for keep-alive connections idle past the idle timeout. A balancer's
    /// PROXY header has the request timeout from accept (slowloris), and no answer.
    func tick(now: UInt64) {
        guard !connection.isClosed, !awaitingResponse else { return }
        let shared = context.shared
        if connection.isAwaitingProxyHeader {
            if now &- lastActivity > shared.httpRequestTimeoutNanos { connection.close(reason: .proxyHeader(.timeout)) }
            return
        }
        if requestStartedAt != 0, now &- requestStartedAt > shared.httpRequestTimeoutNanos {
            respond(.error(status: HTTPStatus(code: 408), code: "REQUEST_TIMEOUT", message: "request not received in time"),
                    keepAlive: false, version: .http1_1)
        } else if requestStartedAt == 0, now &- lastActivity > shared.httpIdleTimeoutNanos {
            connection.close(reason: .closedByServer)
        }
    }

    /// Drain: idle keep-alive connections close now; busy ones close after their answer.
    func drain() {
        if !awaitingResponse && requestStartedAt == 0 {
            connection.closeWhenFlushed()
        }
    }
}
