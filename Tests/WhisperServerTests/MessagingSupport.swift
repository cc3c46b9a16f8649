import Foundation
import Testing
import WhisperTesting

/// A logged-in phone in a messaging test: its socket, keys and session.
struct Phone {
    let ws: TestWebSocket
    let identity: TestIdentity
    let login: TestLogin

    var id: String { login.whisperId }
    var token: String { login.sessionToken }

    static func online(_ server: TestServer, _ identity: TestIdentity = TestIdentity(), whisperId: String? = nil) throws -> Phone {
        let ws = try TestWebSocket(port: server.publicPort)
        return Phone(ws: ws, identity: identity, login: try ws.login(identity, whisperId: whisperId))
    }

    /// The same identity on a fresh socket (a reconnect: a new login with the stored id).
    func reconnect(_ server: TestServer) throws -> Phone {
        ws.socket.close()
        return try Phone.online(server, identity, whisperId: id)
    }

    func send(_ message: TestMessage, requestId: String = "send") throws -> [String: Any] {
        try ws.send(message, signedBy: identity.signing, token: token, requestId: requestId)
    }

    /// Sends a fresh message to `peer` and expects `message_accepted`.
    @discardableResult
    func sendAccepted(to peer: String, ciphertextBytes: Int = 48) throws -> TestMessage {
        let message = TestMessage(from: id, to: peer, ciphertextBytes: ciphertextBytes)
        let reply = try send(message)
        #expect(reply.frameType == "message_accepted", "\(reply)")
        return message
    }

    /// Every pending message, following `nextCursor` in pages of `limit`.
    func fetchAll(limit: Int = 200) throws -> (messages: [[String: Any]], pages: [Int]) {
        var messages: [[String: Any]] = []
        var pages: [Int] = []
        var cursor: String?
        repeat {
            let reply = try ws.fetchPending(token: token, cursor: cursor, limit: limit)
            #expect(reply.frameType == "pending_messages", "\(reply)")
            let page = reply.payload["messages"] as? [[String: Any]] ?? []
            pages.append(page.count)
            messages += page
            cursor = reply.payload["nextCursor"] as? String
        } while cursor != nil
        return (messages, pages)
    }

    /// An app-level ping answered by a pong with nothing before it: proves no other frame
    /// was queued for this socket.
    func expectQuiet() throws {
        let reply = try ws.request(["type": "ping", "payload": [String: Any]()])
        #expect(reply.frameType == "pong", "expected nothing before the pong, got \(reply)")
    }
}

enum Messaging {
    /// Waits until the server has seen sockets close (its authenticated-connections gauge
    /// is down to `count`): until then it still writes to them, and what it writes to a
    /// socket the client already closed is gone.
    static func waitForAuthenticated(_ server: TestServer, count: Double) async {
        let gauge = "whisper_ws_authenticated_connections"
        let closed = await eventually(within: 5, every: 0.025) { (try? Identity.metricValue(server, gauge)) == count }
        if !closed {
            let last = Result { try Identity.metricValue(server, gauge) }
            Issue.record("the server did not notice the closed socket: \(gauge) is \(last), expected \(count)")
        }
    }
}
