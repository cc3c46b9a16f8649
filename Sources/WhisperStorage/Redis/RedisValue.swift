internal import CHiredis

/// A RESP2 reply. `bulk(nil)` and `array(nil)` are the null bulk string and null array.
public enum RedisValue: Sendable, Equatable {
    case status(String)
    case error(String)
    case integer(Int64)
    case bulk([UInt8]?)
    case array([RedisValue]?)

    /// The bulk payload as UTF-8 text (status text for a status reply).
    public var string: String? {
        switch self {
        case .bulk(let bytes?): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }

    public var bytes: [UInt8]? {
        if case .bulk(let bytes) = self { return bytes }
        return nil
    }

    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var array: [RedisValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var isNull: Bool {
        switch self {
        case .bulk(nil), .array(nil): return true
        default: return false
        }
    }

    /// Copies a hiredis reply (freed once its completion returns). hiredis's
    /// reader already caps nesting depth, so the recursion is bounded.
    init(reply: UnsafeMutablePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STATUS:
            self = .status(Self.text(r.str, r.len))
        case REDIS_REPLY_ERROR:
            self = .error(Self.text(r.str, r.len))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(r.integer))
        case REDIS_REPLY_STRING:
            self = .bulk(Self.bytes(r.str, r.len))
        case REDIS_REPLY_ARRAY:
            var values: [RedisValue] = []
            values.reserveCapacity(r.elements)
            if let elements = r.element {
                for i in 0..<r.elements {
                    if let element = elements[i] {
                        values.append(RedisValue(reply: element))
                    } else {
                        values.append(.bulk(nil))
                    }
                }
            }
            self = .array(values)
        default:
            // REDIS_REPLY_NIL: hiredis uses one type for the null bulk and null array.
            self = .bulk(nil)
        }
    }

    static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ length: Int) -> [UInt8] {
        guard let pointer, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    static func text(_ pointer: UnsafeMutablePointer<CChar>?, _ length: Int) -> String {
        String(decoding: bytes(pointer, length), as: UTF8.self)
    }
}
