internal import CHiredis

/// libFuzzer target `redis`: RESP bytes from the Redis link through hiredis's own reader (the
/// parser the server's async context uses) and then the Swift copy of each reply,
/// `RedisValue(reply:)`, and the in-place reading the message path uses, `RedisReply`, both of
/// which walk hiredis's C structures. Built in one module with
/// Sources/WhisperStorage/Redis/RedisValue.swift and RedisReply.swift so the internal
/// initializers are reachable.
///
/// Input layout: byte 0 is the chunk size (1–64) the rest is fed to the reader in.
/// Invariants: no crash, leak or hang; a copied bulk or status holds exactly the reply's bytes
/// and an array its element count; `RedisReply` reads the same integers, texts and elements as
/// the copy.
@_cdecl("LLVMFuzzerTestOneInput")
public func redisFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1, !RedisFuzzSupport.declaresHugeAggregate(UnsafeBufferPointer(start: data, count: size)),
          let reader = redisReaderCreate() else { return 0 }
    defer { redisReaderFree(reader) }
    let chunk = Int(data[0] % 64) + 1
    var offset = 1
    while offset < size {
        let count = min(chunk, size - offset)
        let fed = (data + offset).withMemoryRebound(to: CChar.self, capacity: count) { redisReaderFeed(reader, $0, count) }
        guard fed == REDIS_OK else { return 0 }
        offset += count
        while true {
            var reply: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &reply) == REDIS_OK, let reply else { break }
            let typed = reply.assumingMemoryBound(to: redisReply.self)
            let value = RedisValue(reply: typed)
            RedisFuzzSupport.check(value, against: typed)
            RedisFuzzSupport.check(RedisReply(typed), agreesWith: value)
            freeReplyObject(reply)
        }
        if reader.pointee.err != 0 { return 0 }
    }
    return 0
}

enum RedisFuzzSupport {
    /// hiredis 0.14 (Debian 12) callocs an aggregate's element array as soon as it reads the
    /// header, with no cap: `*288888888\r\n` asks for 2.3 GB. That is hiredis trusting its Redis
    /// server (docs/security.md "Fuzzing", findings), not something the Swift side can bound,
    /// so inputs declaring more than 2^20 elements are skipped to keep the target useful.
    static func declaresHugeAggregate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let aggregateTypes: Set<UInt8> = Set("*%~>|".utf8)
        var i = 0
        while i < bytes.count {
            defer { i += 1 }
            guard aggregateTypes.contains(bytes[i]) else { continue }
            var value = 0
            var j = i + 1
            while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9") {
                value = value * 10 + Int(bytes[j] - UInt8(ascii: "0"))
                if value > 1 << 20 { return true }
                j += 1
            }
        }
        return false
    }

    static func check(_ reply: RedisReply, agreesWith value: RedisValue) {
        precondition(reply.integer == value.integer, "integer disagrees")
        precondition(reply.string == value.string, "text disagrees")
        precondition(reply.isError == { if case .error = value { return true } else { return false } }(), "error disagrees")
        let items = value.array ?? []
        precondition(reply.count == items.count, "element count disagrees")
        for (i, item) in items.enumerated() {
            if let element = reply[i] { check(element, agreesWith: item) } else { precondition(item == .bulk(nil), "missing element") }
        }
    }

    static func check(_ value: RedisValue, against reply: UnsafeMutablePointer<redisReply>) {
        let r = reply.pointee
        switch value {
        case .bulk(let bytes?):
            if r.type == REDIS_REPLY_STRING { precondition(bytes.count == r.len, "bulk length changed") }
        case .status(let text):
            _ = text
            precondition(r.type == REDIS_REPLY_STATUS, "status from another type")
        case .array(let items?):
            precondition(items.count == r.elements, "array length changed")
            if let elements = r.element {
                for (i, item) in items.enumerated() {
                    if let element = elements[i] { check(item, against: element) }
                }
            }
        default:
            break
        }
    }
}
