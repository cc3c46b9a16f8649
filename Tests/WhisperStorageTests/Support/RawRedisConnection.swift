import WhisperTesting
import Synchronization
import WhisperRuntime
@testable import WhisperStorage

/// A bare `RedisConnection` (no `RedisLink`: no handshake, no reconnect) on a test loop, for what
/// only the connection itself decides: pushes, buffer limits. It records its pushes and its close.
final class RawRedisConnection: Sendable {
    private final class Holder {
        var connection: RedisConnection?
    }

    private let holder: LoopBound<Holder>
    private let events = Mutex<(messages: [[UInt8]], closed: String?)>(([], nil))

    var messages: [[UInt8]] { events.withLock { $0.messages } }
    var closeReason: String? { events.withLock { $0.closed } }

    private init(loop: EventLoop) {
        holder = LoopBound(Holder(), loop: loop)
    }

    /// Opened and connected, or nil when it closed first.
    static func open(_ configuration: RedisConfiguration, on harness: TestLoop,
                     bufferLimit: Int = RedisConnection.maxBufferedBytes) async throws -> RawRedisConnection? {
        let tls = try configuration.clientTLS()
        let raw = RawRedisConnection(loop: harness.loop)
        let connected = await harness.run { (done: @escaping @Sendable (Bool) -> Void) in
            var reported = false
            let report = { (connected: Bool) in
                if !reported { done(connected) }
                reported = true
            }
            let opened = RedisConnection.open(host: configuration.host, port: configuration.port, tls: tls,
                                              loop: harness.loop, timeoutNanos: 5_000_000_000,
                                              bufferLimit: bufferLimit) { connection in
                connection.onConnected = { report(true) }
                connection.onMessage = { _, payload in raw.events.withLock { $0.messages.append(payload) } }
                connection.onClosed = { reason in
                    raw.events.withLock { $0.closed = reason }
                    report(false)
                }
            }
            raw.holder.value.connection = try? opened.get()
        }
        return connected ? raw : nil
    }

    /// Runs `body` with the connection on its loop and returns what it passes to `done`.
    func run<T: Sendable>(_ body: @escaping @Sendable (RedisConnection, _ done: @escaping @Sendable (T) -> Void) -> Void) async -> T? {
        await withCheckedContinuation { continuation in
            holder.deliver { holder in
                guard let connection = holder.connection else { return continuation.resume(returning: nil) }
                body(connection) { continuation.resume(returning: $0) }
            }
        }
    }

    func close() async {
        _ = await run { (connection, done: @escaping @Sendable (Bool) -> Void) in
            connection.close(because: "test done")
            done(true)
        }
    }
}
