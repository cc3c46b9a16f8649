/// A Lua script, named by the SHA-1 of its source as Redis names it, so `EVALSHA` can be
/// tried first without a round trip to `SCRIPT LOAD`.
public struct RedisScript: Sendable, Hashable {
    public let source: String
    /// Lower-case hex SHA-1 of `source`.
    public let sha1: String
    /// `EVALSHA <sha1>` as two encoded arguments, the head of every call.
    let evalshaArguments: [UInt8]

    public init(source: String) {
        self.source = source
        sha1 = SHA1.hex(Array(source.utf8))
        evalshaArguments = RedisCommand.arguments(["EVALSHA", sha1])
    }

    public static func == (lhs: RedisScript, rhs: RedisScript) -> Bool { lhs.sha1 == rhs.sha1 }
    public func hash(into hasher: inout Hasher) { hasher.combine(sha1) }
}

/// One run of a script with its keys and arguments, encoded once (`RedisCommand`): the
/// `EVALSHA` form is what is sent, and sent again unchanged when a retry-safe script lost its
/// link; the `EVAL` form (with the source) only after `NOSCRIPT`.
///
///     RedisScriptCall(MessageScripts.accept, keys: { keys in keys.append(…) },
///                     arguments: { arguments in arguments.append(…) })
///
/// Keys and arguments are written by two closures, so keys always come first and their count
/// (`numkeys`) is known without the caller stating it.
public struct RedisScriptCall: Sendable {
    public let script: RedisScript
    /// `EVALSHA <sha1> <numkeys> <keys…> <arguments…>`, finished once.
    let evalsha: ArraySlice<UInt8>
    private let keyCount: Int
    private let argumentCount: Int
    /// `*<count>`, `EVALSHA`, the SHA-1 and `numkeys` fit here (≈ 90 bytes).
    private static let headerRoom = 112

    public init(_ script: RedisScript, capacity: Int = 256,
                keys: (inout RedisCommand) -> Void, arguments: (inout RedisCommand) -> Void) {
        self.script = script
        var command = RedisCommand(headerRoom: Self.headerRoom, capacity: capacity)
        keys(&command)
        keyCount = command.count
        arguments(&command)
        argumentCount = command.count
        evalsha = command.finish(leading: script.evalshaArguments, leadingCount: 2, number: keyCount)
    }

    public init(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]]) {
        var capacity = 0
        for argument in keys { capacity += argument.count + RedisCommand.argumentOverhead }
        for argument in arguments { capacity += argument.count + RedisCommand.argumentOverhead }
        self.init(script, capacity: capacity,
                  keys: { command in for key in keys { command.append(key) } },
                  arguments: { command in for argument in arguments { command.append(argument) } })
    }

    /// `EVAL <source> <numkeys> …`, after `NOSCRIPT`: also loads the script into the server's
    /// cache for the next `EVALSHA`.
    var eval: ArraySlice<UInt8> {
        var command = RedisCommand(encodedArguments: evalsha[Self.headerRoom...], count: argumentCount,
                                   headerRoom: script.source.utf8.count + Self.headerRoom)
        return command.finish(leading: RedisCommand.arguments(["EVAL", script.source]), leadingCount: 2, number: keyCount)
    }
}
