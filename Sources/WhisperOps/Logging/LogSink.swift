/// Where finished log lines go. `write` receives one complete JSON object plus `\n` and may be
/// called from any thread at the same time.
public protocol LogSink: Sendable {
    func write(line: [UInt8])
}
