internal import CHiredis

/// A hiredis reply read where it lies, for completions on the message path that would
/// otherwise copy every reply into a `RedisValue` tree only to pick two fields out of it.
///
/// Valid only during the completion it is handed to: the connection frees the reply (hiredis's
/// reader hands each one over) when the completion returns, so copy out what you keep (`value`
/// copies all of it).
public struct RedisReply {
    let pointer: UnsafeMutablePointer<redisReply>

    init(_ pointer: UnsafeMutablePointer<redisReply>) { self.pointer = pointer }

    private var type: Int32 { pointer.pointee.type }

    /// The whole reply, copied.
    public var value: RedisValue { RedisValue(reply: pointer) }

    public var integer: Int64? {
        type == REDIS_REPLY_INTEGER ? Int64(pointer.pointee.integer) : nil
    }

    /// True for an error reply whose message starts with `prefix` (e.g. `NOSCRIPT`).
    public func isError(withPrefix prefix: StaticString) -> Bool {
        guard type == REDIS_REPLY_ERROR else { return false }
        let message = bytes
        return prefix.withUTF8Buffer { expected in
            message.count >= expected.count && message.prefix(expected.count).elementsEqual(expected)
        }
    }

    public var isError: Bool { type == REDIS_REPLY_ERROR }

    /// An error reply's message (e.g. `MOVED 3999 127.0.0.1:6381`), decoded now; `nil` otherwise.
    public var errorMessage: String? {
        type == REDIS_REPLY_ERROR ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// A bulk string's or status's text, decoded now; `nil` for other replies.
    public var string: String? {
        guard type == REDIS_REPLY_STRING || type == REDIS_REPLY_STATUS else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number of elements of an array reply; 0 for anything else.
    public var count: Int {
        type == REDIS_REPLY_ARRAY ? pointer.pointee.elements : 0
    }

    /// Element `index` of an array reply; `nil` out of range or for a missing element.
    public subscript(index: Int) -> RedisReply? {
        guard index >= 0, index < count, let elements = pointer.pointee.element,
              let element = elements[index] else { return nil }
        return RedisReply(element)
    }

    private var bytes: UnsafeRawBufferPointer {
        let reply = pointer.pointee
        guard let text = reply.str, reply.len > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: text, count: reply.len)
    }
}
