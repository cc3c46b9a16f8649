internal import CHiredis

/// libFuzzer target `redis`: RESP bytes from the Redis link through hiredis's own reader (the
/// parser the server's async context uses) and then the Swift copy of each reply,
/// `RedisValue(reply:)`, which walks hiredis's C structures. Built in one module with
/// Sources/WhisperStorage/Redis/RedisValue.swift so the internal initializer is reachable.
///
/// Input layout: byte 0 is the chunk size (1–64) the rest is fed to the reader in.
/// Invariants: no crash, leak or hang; a copied bulk or status holds exactly the reply's bytes
/// and an array its element count.
@_cdecl("LLVMFuzzerTestOneInput")
public func redisFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1, let reader = redisReaderCreate() else { return 0 }
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
            RedisFuzzSupport.check(RedisValue(reply: typed), against: typed)
            freeReplyObject(reply)
        }
        if reader.pointee.err != 0 { return 0 }
    }
    return 0
}

enum RedisFuzzSupport {
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
