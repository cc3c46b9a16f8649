internal import CHiredis

/// The C side of the adapter: callbacks that capture nothing and find their connection
/// through `privdata` / `ev.data`, and argv packing for `redisAsyncCommandArgv`.
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

    /// Packs arguments into one buffer and hands hiredis pointers into it (binary-safe:
    /// explicit lengths, NUL bytes allowed).
    static func withArgv(_ arguments: [[UInt8]],
                         _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int>?) -> Int32) -> Int32 {
        guard !arguments.isEmpty, let argc = Int32(exactly: arguments.count) else { return REDIS_ERR }
        var flat: [UInt8] = []
        flat.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        for argument in arguments { flat.append(contentsOf: argument) }
        flat.append(0)  // never empty, so a base address exists even if every argument is ""
        return flat.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return REDIS_ERR }
            let raw = UnsafeRawPointer(base)
            var pointers: [UnsafePointer<CChar>?] = []
            var lengths: [Int] = []
            pointers.reserveCapacity(arguments.count)
            lengths.reserveCapacity(arguments.count)
            var offset = 0
            for argument in arguments {
                pointers.append((raw + offset).assumingMemoryBound(to: CChar.self))
                lengths.append(argument.count)
                offset += argument.count
            }
            return pointers.withUnsafeMutableBufferPointer { p in
                lengths.withUnsafeBufferPointer { l in body(argc, p.baseAddress, l.baseAddress) }
            }
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
