import CHiredis
import Testing
import WhisperOps
@testable import WhisperStorage

/// Regression for the libFuzzer finding in docs/security.md ("hiredis allocates whatever an
/// aggregate header declares"): hiredis 0.14 callocs the element array as soon as it reads
/// `*288888888\r\n`. Not ours to fix (the reply comes from the trusted Redis side); this pins
/// what it costs the server's reader today: an incomplete reply, no crash, and no memory touched
/// (a calloc that large is a lazily mapped region), and the reader still parses a complete reply.
@Suite("hiredis reader (no server)")
struct HiredisReaderTests {
    @Test func hugeAggregateHeader_isIncomplete_withoutCrashOrResidentMemory() throws {
        let reader = try #require(redisReaderCreate())
        defer { redisReaderFree(reader) }
        let rssBefore = Self.residentBytes()
        let header = Array("*288888888\r\n:1\r\n".utf8)
        let fed = header.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisReaderFeed(reader, $0.baseAddress, $0.count) }
        }
        #expect(fed == REDIS_OK)
        var reply: UnsafeMutableRawPointer?
        #expect(redisReaderGetReply(reader, &reply) == REDIS_OK)
        #expect(reply == nil, "288,888,888 elements declared, one sent: the reply is incomplete")
        if let rssBefore, let rssAfter = Self.residentBytes() {
            #expect(rssAfter < rssBefore + 64 << 20, "resident memory grew by \(rssAfter - rssBefore) bytes")
        }
    }

    @Test func completeReply_isCopiedIntoARedisValue() throws {
        try Self.withReply("*3\r\n:7\r\n$2\r\nok\r\n$-1\r\n") { reply in
            #expect(RedisValue(reply: reply.pointer) == .array([.integer(7), .bulk(Array("ok".utf8)), .bulk(nil)]))
        }
    }

    @Test func replyReadInPlace_agreesWithTheCopy() throws {
        try Self.withReply("*4\r\n:0\r\n$16\r\n1795518869458-12\r\n+OK\r\n$-1\r\n") { reply in
            #expect(reply.count == 4)
            #expect(reply[0]?.integer == 0)
            #expect(reply[1]?.string == "1795518869458-12")
            #expect(reply[1]?.integer == nil)
            #expect(reply[2]?.string == "OK")
            #expect(reply[3]?.string == nil)
            #expect(reply[4] == nil && reply[-1] == nil)
            #expect(!reply.isError)
            #expect(reply.value == .array([.integer(0), .bulk(Array("1795518869458-12".utf8)), .status("OK"), .bulk(nil)]))
        }
        try Self.withReply("-NOSCRIPT No matching script. Please use EVAL.\r\n") { reply in
            #expect(reply.isError)
            #expect(reply.isError(withPrefix: "NOSCRIPT"))
            #expect(!reply.isError(withPrefix: "NOSCRIPTS"))
            #expect(reply.string == nil && reply.count == 0 && reply[0] == nil)
        }
        try Self.withReply("-NO\r\n") { reply in
            #expect(!reply.isError(withPrefix: "NOSCRIPT"))
            #expect(reply.isError(withPrefix: "N"))  // a one-scalar StaticString has no pointer
            #expect(reply.isError(withPrefix: ""))
        }
        try Self.withReply("$8\r\nNOSCRIPT\r\n") { reply in #expect(!reply.isError(withPrefix: "NOSCRIPT")) }
    }

    /// Parses `resp` with hiredis's reader and hands the reply to `body` while it is alive.
    static func withReply(_ resp: String, _ body: (RedisReply) -> Void) throws {
        let reader = try #require(redisReaderCreate())
        defer { redisReaderFree(reader) }
        let bytes = Array(resp.utf8)
        _ = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisReaderFeed(reader, $0.baseAddress, $0.count) }
        }
        var reply: UnsafeMutableRawPointer?
        #expect(redisReaderGetReply(reader, &reply) == REDIS_OK)
        let parsed = try #require(reply)
        defer { freeReplyObject(parsed) }
        body(RedisReply(parsed.assumingMemoryBound(to: redisReply.self)))
    }

    static func residentBytes() -> UInt64? {
        guard let status = ProcFile.readText("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kib = UInt64(fields[1]) { return kib * 1024 }
        }
        return nil
    }
}
