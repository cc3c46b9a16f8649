import Synchronization

/// Collects pub/sub payloads from the loop thread for assertions in async tests.
final class MessageInbox: Sendable {
    private let messages = Mutex<[[UInt8]]>([])

    func append(_ payload: [UInt8]) {
        messages.withLock { $0.append(payload) }
    }

    var all: [[UInt8]] { messages.withLock { $0 } }

    func contains(_ payload: [UInt8]) -> Bool {
        messages.withLock { $0.contains(payload) }
    }
}
