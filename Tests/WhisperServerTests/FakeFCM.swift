import Foundation
import Synchronization
import Testing
import WhisperRuntime
import WhisperTesting

/// A stand-in for Google's side of FCM HTTP v1 on a loopback HTTPS port (HTTP/1.1: libcurl
/// falls back from h2 when the server offers no ALPN): the OAuth token endpoint `POST /token`
/// and `POST /v1/projects/<project>/messages:send`. It counts the requests and answers what the
/// test set, after an optional delay; its certificate is trusted through `WHISPER_PUSH_CA_FILE`.
/// The wire against the real HTTP/2 fakes is checked in Tests/interop/test_push.py.
final class FakeFCM: @unchecked Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: String
        var delayMillis: UInt64 = 0

        static let token = Answer(status: 200, body: #"{"access_token":"fake-access-token","expires_in":3600}"#)
        static let sent = Answer(status: 200, body: #"{"name":"projects/whisper-test/messages/1"}"#)
    }

    private struct State {
        var tokenAnswer = Answer.token
        var sendAnswer = Answer.sent
        var tokenRequests = 0
        /// The bodies of the `messages:send` requests answered.
        var sends: [String] = []
    }

    let directory: URL
    let caFile: String
    let credentialsFile: String
    private(set) var port = 0
    private let group: EventLoopGroup
    private let state = Mutex(State())
    private var listener: Listener?

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-fakefcm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        caFile = directory.appendingPathComponent("cert.pem").path
        credentialsFile = directory.appendingPathComponent("service-account.json").path
        try await Subprocess.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                     "-nodes", "-keyout", key, "-out", caFile, "-days", "1",
                                                     "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        group = try EventLoopGroup(threads: 1)
        group.start()
        let loop = group.loops[0]
        let listener = try Listener(loop: loop, address: try SocketAddress(host: "127.0.0.1", port: 0),
                                    tls: try TLSContext(certificatePath: caFile, keyPath: key),
                                    limits: ConnectionLimits()) { [self] connection in
            connection.delegate = FakeFCMConnection(fake: self)
        }
        self.listener = listener
        port = listener.address.port
        let bound = LoopBound(listener, loop: loop)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            loop.execute {
                do { try bound.value.start(); continuation.resume() } catch { continuation.resume(throwing: error) }
            }
        }

        let signingKey = try String(contentsOfFile: PushProviderTests.fixturePath("rs256-test-key.pem"), encoding: .utf8)
        let account: [String: String] = [
            "type": "service_account", "project_id": "whisper-test", "private_key": signingKey,
            "client_email": "push@whisper-test.iam.gserviceaccount.com", "token_uri": "https://127.0.0.1:\(port)/token",
        ]
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: credentialsFile))
    }

    /// The server settings that send FCM pushes here.
    var serverEnvironment: [String: String] {
        ["WHISPER_FCM_CREDENTIALS_FILE": credentialsFile, "WHISPER_FCM_ENDPOINT": "https://127.0.0.1:\(port)",
         "WHISPER_PUSH_CA_FILE": caFile]
    }

    var tokenRequests: Int { state.withLock { $0.tokenRequests } }
    var sends: [String] { state.withLock { $0.sends } }

    func answerTokens(_ answer: Answer) { state.withLock { $0.tokenAnswer = answer } }
    func answerSends(_ answer: Answer) { state.withLock { $0.sendAnswer = answer } }

    func stop() {
        group.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Counts the request and picks its answer; nil for a path FCM does not have.
    fileprivate func answer(path: String, body: [UInt8]) -> Answer? {
        state.withLock { state in
            if path == "/token" {
                state.tokenRequests += 1
                return state.tokenAnswer
            }
            guard path == "/v1/projects/whisper-test/messages:send" else { return nil }
            if state.sendAnswer.status == 200 { state.sends.append(String(decoding: body, as: UTF8.self)) }
            return state.sendAnswer
        }
    }
}

/// One connection to the fake: HTTP/1.1 requests with a `content-length` body, answered in turn.
private final class FakeFCMConnection: ConnectionDelegate {
    private let fake: FakeFCM
    private var input: [UInt8] = []

    init(fake: FakeFCM) { self.fake = fake }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        input += bytes
        while let (path, body, used) = Self.request(in: input) {
            input.removeFirst(used)
            let answer = fake.answer(path: path, body: body) ?? FakeFCM.Answer(status: 404, body: "{}")
            let response = Array("HTTP/1.1 \(answer.status) X\r\ncontent-type: application/json\r\ncontent-length: \(answer.body.utf8.count)\r\n\r\n\(answer.body)".utf8)
            guard answer.delayMillis > 0 else {
                _ = connection.write(response)
                continue
            }
            _ = connection.loop.schedule(afterNanoseconds: answer.delayMillis * 1_000_000) {
                if !connection.isClosed { _ = connection.write(response) }
            }
        }
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {}

    /// The first complete request in `bytes`: its path, body and length, or nil while incomplete.
    private static func request(in bytes: [UInt8]) -> (String, [UInt8], Int)? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let path = head.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let length = head.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let total = end + 4 + length
        guard bytes.count >= total else { return nil }
        return (path, Array(bytes[(end + 4)..<total]), total)
    }
}
