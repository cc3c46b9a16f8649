import Dispatch
import Foundation
import Testing
import WhisperOps

@Suite struct LogTests {
    static let fixedTime = WallTime(secondsSinceEpoch: 1_700_000_000, nanoseconds: 123_456_789)

    func makeLog(_ level: LogLevel = .debug) -> (Log, MemoryLogSink) {
        let sink = MemoryLogSink()
        return (Log(level: level, sink: sink, clock: { Self.fixedTime }), sink)
    }

    func parse(_ line: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func line_hasStandardFieldsFirstInFixedOrder() {
        let (log, sink) = makeLog()
        log.info("message_accepted", connId: 17, whisperId: "WSP-ABCD", deviceId: "dev-1", messageId: "m-1",
                 latencyMs: 1.23456, code: "OK", ["bytes": .int(812), "group": false, "path": "live"])
        #expect(sink.lines == [
            #"{"ts":"2023-11-14T22:13:20.123Z","level":"info","event":"message_accepted","connId":17,"#
                + #""whisperId":"WSP-ABCD","deviceId":"dev-1","messageId":"m-1","latencyMs":1.235,"code":"OK","#
                + #""bytes":812,"group":false,"path":"live"}"#,
        ])
    }

    @Test func line_omitsStandardFieldsThatWereNotGiven() {
        let (log, sink) = makeLog()
        log.warn("redis_reconnecting")
        #expect(sink.lines == [#"{"ts":"2023-11-14T22:13:20.123Z","level":"warn","event":"redis_reconnecting"}"#])
    }

    @Test func strings_areEscapedIntoValidJSON() throws {
        let (log, sink) = makeLog()
        let nasty = "quote\" back\\slash \n\r\t\u{08}\u{0C} ctl\u{01}\u{1F}\u{7F} é 😀 \u{2028}\u{2029} </script>"
        log.error("weird_input", whisperId: nasty, code: "X", ["peer": .string(nasty)])
        let line = try #require(sink.lines.first)
        #expect(!line.contains("\n"))
        #expect(line.contains(#"\u2028"#) && line.contains(#"\u0001"#) && line.contains(#"\u007f"#))
        let object = try parse(line)
        #expect(object["whisperId"] as? String == nasty)
        #expect(object["peer"] as? String == nasty)
        #expect(object["level"] as? String == "error")
    }

    @Test func nonFiniteLatency_isWrittenAsNull() throws {
        let (log, sink) = makeLog()
        log.info("odd", latencyMs: .infinity)
        log.info("whole", latencyMs: 42)
        let first = try parse(sink.lines[0])
        #expect(first["latencyMs"] is NSNull)
        #expect(sink.lines[1].contains(#""latencyMs":42}"#))
    }

    @Test func extraFieldNamedLikeAStandardOne_isRenamed() throws {
        let (log, sink) = makeLog()
        log.info("spoof", ["level": "debug", "ts": 1])
        let object = try parse(try #require(sink.lines.first))
        #expect(object["level"] as? String == "info")
        #expect(object["x_level"] as? String == "debug")
        #expect(object["x_ts"] as? Int == 1)
    }

    @Test func levelsBelowTheThreshold_areDropped() {
        let (log, sink) = makeLog(.warn)
        log.debug("a")
        log.info("b")
        log.warn("c")
        log.error("d")
        #expect(sink.lines.map { $0.contains(#""event":"c""#) || $0.contains(#""event":"d""#) } == [true, true])
        #expect(!log.isEnabled(.info) && log.isEnabled(.warn))
    }

    @Test func threshold_canChangeAtRunTime() {
        let (log, sink) = makeLog(.error)
        log.info("before")
        log.level = .debug
        log.debug("after")
        #expect(sink.lines.count == 1)
        #expect(log.level == .debug)
    }

    @Test func concurrentLogging_keepsEveryLineWhole() throws {
        let (log, sink) = makeLog()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 {
                log.info("tick", connId: UInt64(thread), ["index": .int(index), "pad": .string(String(repeating: "x", count: 200))])
            }
        }
        #expect(sink.lines.count == 4000)
        for line in sink.lines.prefix(50) { _ = try parse(line) }
    }

    @Test func fileDescriptorSink_writesCompleteLinesToAPipe() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let sink = FileDescriptorLogSink(fileDescriptor: fds[1])
        let log = Log(level: .info, sink: sink, clock: { Self.fixedTime })
        log.info("hello", ["n": 1])
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fds[0], &buffer, buffer.count)
        let text = String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
        #expect(text == #"{"ts":"2023-11-14T22:13:20.123Z","level":"info","event":"hello","n":1}"# + "\n")
        #expect(sink.droppedLines == 0)
    }

    @Test func logLevelNames_parseCaseInsensitively() {
        #expect(LogLevel(name: "WARNING") == .warn)
        #expect(LogLevel(name: "Error") == .error)
        #expect(LogLevel(name: "trace") == nil)
        #expect(LogLevel.allCases.map(\.name) == ["debug", "info", "warn", "error"])
    }
}
