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
        let reader = try #require(redisReaderCreate())
        defer { redisReaderFree(reader) }
        let bytes = Array("*3\r\n:7\r\n$2\r\nok\r\n$-1\r\n".utf8)
        _ = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisReaderFeed(reader, $0.baseAddress, $0.count) }
        }
        var reply: UnsafeMutableRawPointer?
        #expect(redisReaderGetReply(reader, &reply) == REDIS_OK)
        let parsed = try #require(reply)
        defer { freeReplyObject(parsed) }
        #expect(RedisValue(reply: parsed.assumingMemoryBound(to: redisReply.self))
                == .array([.integer(7), .bulk(Array("ok".utf8)), .bulk(nil)]))
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
