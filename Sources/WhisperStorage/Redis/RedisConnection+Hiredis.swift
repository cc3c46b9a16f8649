internal import CHiredis

/// The C side of the adapter: callbacks that capture nothing and find their connection
/// through `privdata` / `ev.data`, and the hand-over of encoded commands.
extension RedisConnection {
    static func from(_ pointer: UnsafeRawPointer?) -> RedisConnection? {
        guard let pointer else { return nil }
        return Unmanaged<RedisConnection>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Points every ev hook at this connection.
    static func installHooks(_ ac: UnsafeMutablePointer<redisAsyncContext>, _ opaque: UnsafeMutableRawPointer) {
        ac.pointee.data = opaque
        ac.pointee.ev.data = opaque
        ac.pointee.ev.addRead = { RedisConnection.from($0)?.setRead(true) }
        ac.pointee.ev.delRead = { RedisConnection.from($0)?.setRead(false) }
        ac.pointee.ev.addWrite = { RedisConnection.from($0)?.requestWrite() }
        ac.pointee.ev.delWrite = { RedisConnection.from($0)?.cancelWrite() }
        ac.pointee.ev.cleanup = { RedisConnection.from($0)?.cleanup() }
    }

    static func installConnectCallback(_ ac: UnsafeMutablePointer<redisAsyncContext>) {
        _ = redisAsyncSetConnectCallback(ac) { ac, status in
            RedisConnection.from(ac?.pointee.data)?.connected(ok: status == REDIS_OK)
        }
    }

    /// Hands hiredis the bytes of an encoded command (never empty: a header at least).
    static func withRESP(_ command: ArraySlice<UInt8>, _ body: (UnsafePointer<CChar>, Int) -> Int32) -> Int32 {
        command.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress, !raw.isEmpty else { return REDIS_ERR }
            return body(base.assumingMemoryBound(to: CChar.self), raw.count)
        }
    }
}

func redisReplyTrampoline(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                          _ privdata: UnsafeMutableRawPointer?) {
    RedisConnection.from(privdata)?.reply(reply?.assumingMemoryBound(to: redisReply.self))
}

func redisSubscriptionTrampoline(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                                 _ privdata: UnsafeMutableRawPointer?) {
    RedisConnection.from(privdata)?.pushed(reply?.assumingMemoryBound(to: redisReply.self))
}

/// Why `RedisConnection.open` could not even start.
struct RedisStartFailure: Error {
    let reason: String
}
