import Synchronization

/// Keeps log lines in memory, for tests that assert on what was logged.
public final class MemoryLogSink: LogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(line: [UInt8]) {
        let text = String(decoding: line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...], as: UTF8.self)
        storage.withLock { $0.append(text) }
    }

    /// Every line so far, without the trailing newline, in write order.
    public var lines: [String] { storage.withLock { $0 } }

    public func removeAll() { storage.withLock { $0.removeAll() } }
}
