import Synchronization

/// Structured logging (docs/operations.md "Logs"): one JSON object per line,
///
///     {"ts":"2026-11-03T14:05:09.042Z","level":"info","event":"message_accepted",
///      "connId":17,"whisperId":"WSP-…","messageId":"…","latencyMs":1.25,"bytes":812}
///
/// `ts`, `level`, `event` always come first, then the standard fields that were given (`connId`,
/// `whisperId`, `deviceId`, `messageId`, `latencyMs`, `code`), then extra fields in call order.
///
/// What never goes in: session tokens, push tokens, keys, signatures, plaintext, ciphertext,
/// nonces, the admin token or any configuration secret. The API helps: `event` and extra-field
/// keys are `StaticString` literals, and `LogValue` holds only scalars, so there is no way to hand
/// a whole frame or payload to the logger; log a size (`"bytes": .int(n)`) instead.
///
/// Thread-safe; a disabled level costs one relaxed atomic load (guard expensive argument
/// building with `isEnabled`). The minimum level can be changed at run time.
public final class Log: Sendable {
    private let threshold: Atomic<Int>
    private let sink: any LogSink
    private let clock: @Sendable () -> WallTime

    /// Standard field names; an extra field with one of these names is written as `x_<name>`
    /// so that no key appears twice.
    private static let reservedKeys: Set<String> = [
        "ts", "level", "event", "connId", "whisperId", "deviceId", "messageId", "latencyMs", "code",
    ]

    public init(level: LogLevel = .info, sink: any LogSink = FileDescriptorLogSink.standardOutput,
                clock: @escaping @Sendable () -> WallTime = { WallTime.now() }) {
        threshold = Atomic(level.rawValue)
        self.sink = sink
        self.clock = clock
    }

    /// The minimum level written.
    public var level: LogLevel {
        get { LogLevel(rawValue: threshold.load(ordering: .relaxed)) ?? .info }
        set { threshold.store(newValue.rawValue, ordering: .relaxed) }
    }

    @inline(__always)
    public func isEnabled(_ level: LogLevel) -> Bool {
        level.rawValue >= threshold.load(ordering: .relaxed)
    }

    /// Writes one line at `level` if enabled. Prefer `debug`/`info`/`warn`/`error`.
    public func log(_ level: LogLevel, _ event: StaticString, connId: UInt64? = nil, whisperId: String? = nil,
                    deviceId: String? = nil, messageId: String? = nil, latencyMs: Double? = nil,
                    code: String? = nil, _ fields: KeyValuePairs<StaticString, LogValue> = [:]) {
        guard isEnabled(level) else { return }
        let now = clock()
        var line = JSONLineBuilder()
        line.raw("ts") { bytes in
            bytes.append(UInt8(ascii: "\""))
            now.appendRFC3339(to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        line.string("level", level.name)
        line.string("event", event.description)
        if let connId { line.uint("connId", connId) }
        if let whisperId { line.string("whisperId", whisperId) }
        if let deviceId { line.string("deviceId", deviceId) }
        if let messageId { line.string("messageId", messageId) }
        if let latencyMs { line.number("latencyMs", latencyMs) }
        if let code { line.string("code", code) }
        for (staticKey, value) in fields {
            var key = staticKey.description
            if Self.reservedKeys.contains(key) { key = "x_" + key }
            switch value {
            case .string(let text): line.string(key, text)
            case .int(let number): line.int(key, number)
            case .bool(let flag): line.bool(key, flag)
            }
        }
        sink.write(line: line.finish())
    }

    public func debug(_ event: StaticString, connId: UInt64? = nil, whisperId: String? = nil,
                      deviceId: String? = nil, messageId: String? = nil, latencyMs: Double? = nil,
                      code: String? = nil, _ fields: KeyValuePairs<StaticString, LogValue> = [:]) {
        log(.debug, event, connId: connId, whisperId: whisperId, deviceId: deviceId, messageId: messageId,
            latencyMs: latencyMs, code: code, fields)
    }

    public func info(_ event: StaticString, connId: UInt64? = nil, whisperId: String? = nil,
                     deviceId: String? = nil, messageId: String? = nil, latencyMs: Double? = nil,
                     code: String? = nil, _ fields: KeyValuePairs<StaticString, LogValue> = [:]) {
        log(.info, event, connId: connId, whisperId: whisperId, deviceId: deviceId, messageId: messageId,
            latencyMs: latencyMs, code: code, fields)
    }

    public func warn(_ event: StaticString, connId: UInt64? = nil, whisperId: String? = nil,
                     deviceId: String? = nil, messageId: String? = nil, latencyMs: Double? = nil,
                     code: String? = nil, _ fields: KeyValuePairs<StaticString, LogValue> = [:]) {
        log(.warn, event, connId: connId, whisperId: whisperId, deviceId: deviceId, messageId: messageId,
            latencyMs: latencyMs, code: code, fields)
    }

    public func error(_ event: StaticString, connId: UInt64? = nil, whisperId: String? = nil,
                      deviceId: String? = nil, messageId: String? = nil, latencyMs: Double? = nil,
                      code: String? = nil, _ fields: KeyValuePairs<StaticString, LogValue> = [:]) {
        log(.error, event, connId: connId, whisperId: whisperId, deviceId: deviceId, messageId: messageId,
            latencyMs: latencyMs, code: code, fields)
    }
}
