import Foundation
import Testing
import WhisperTesting
@testable import WhisperRuntime

/// Echoes what it reads; on "flood" writes `floodChunks` chunks of 1 MiB, one per timer tick.
final class EchoDelegate: ConnectionDelegate {
    let closes: Box<[CloseReason]>
    init(closes: Box<[CloseReason]>) { self.closes = closes }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        let input = Array(bytes)
        if input == Array("flood".utf8) {
            flood(connection, remaining: 64)
        } else if input == Array("bye".utf8) {
            connection.write(Array("bye".utf8))
            connection.closeWhenFlushed()
        } else {
            connection.write(input)
        }
    }

    private func flood(_ connection: Connection, remaining: Int) {
        guard remaining > 0, !connection.isClosed else { return }
        connection.write([UInt8](repeating: 0x61, count: 1 << 20))
        connection.loop.schedule(afterNanoseconds: 2_000_000) { [self] in flood(connection, remaining: remaining - 1) }
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        closes.update { $0.append(reason) }
    }
}

/// An echo server on one loop, listening on an ephemeral loopback port.
final class EchoServer: @unchecked Sendable {
    let group: EventLoopGroup
    let closes = Box<[CloseReason]>([])
    private(set) var port = 0
    private var listener: Listener?
    private var connections: [Connection] = []

    init(tls: TLSContext? = nil, limits: ConnectionLimits = ConnectionLimits()) async throws {
        group = try EventLoopGroup(threads: 1)
        group.start()
        let loop = group.loops[0]
        let listener = try Listener(loop: loop, address: try SocketAddress(host: "127.0.0.1", port: 0), tls: tls,
                                    limits: limits) { [self] connection in
            connection.delegate = EchoDelegate(closes: closes)
            connections.append(connection)
        }
        self.listener = listener
        port = listener.address.port
        let bound = LoopBound(listener, loop: loop)
        try await onLoopThrowing(loop) { try bound.value.start() }
    }

    func shutdown() { group.shutdown() }
}

func onLoopThrowing(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        loop.execute {
            do { try body(); continuation.resume() } catch { continuation.resume(throwing: error) }
        }
    }
}

@Suite struct ConnectionTests {
    @Test func echo_overRealSocket_returnsTheSameBytes() async throws {
        let server = try await EchoServer()
        defer { server.shutdown() }
        let client = try TestSocket(port: server.port)
        try client.send("hello")
        #expect(try client.receive(exactly: 5) == Array("hello".utf8))
        let big = [UInt8]((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try client.send(big)
        #expect(try client.receive(exactly: big.count) == big)
    }

    @Test func closeWhenFlushed_deliversQueuedBytesThenCloses() async throws {
        let server = try await EchoServer()
        defer { server.shutdown() }
        let client = try TestSocket(port: server.port)
        try client.send("bye")
        #expect(try client.receiveUntilClosed() == Array("bye".utf8))
        #expect(await eventually { server.closes.get == [.closedByServer] })
    }

    @Test func slowConsumer_pastTheOutputCap_isDisconnected() async throws {
        let server = try await EchoServer(limits: ConnectionLimits(maxOutputBytes: 2 << 20))
        defer { server.shutdown() }
        let client = try TestSocket(port: server.port)
        try client.send("flood")  // and never read
        #expect(await eventually(within: 10) { server.closes.get == [.slowConsumer] })
    }

    @Test func peerClose_isReportedOnce() async throws {
        let server = try await EchoServer()
        defer { server.shutdown() }
        let client = try TestSocket(port: server.port)
        try client.send("x")
        _ = try client.receive(exactly: 1)
        client.close()
        #expect(await eventually { server.closes.get == [.peerClosed] })
    }

    @Test func tls_handshakeAndEcho_work() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        try await Subprocess.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                             "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"])
        let server = try await EchoServer(tls: try TLSContext(certificatePath: cert, keyPath: key))
        defer { server.shutdown() }
        let client = try TestSocket(port: server.port, tls: true)
        try client.send("secret hello")
        #expect(try client.receive(exactly: 12) == Array("secret hello".utf8))
        let big = [UInt8](repeating: 7, count: 300_000)
        try client.send(big)
        #expect(try client.receive(exactly: big.count) == big)
    }
}
