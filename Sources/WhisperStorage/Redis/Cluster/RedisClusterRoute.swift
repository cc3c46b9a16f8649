/// Where a command goes in a Redis Cluster, read from the command as encoded (RESP):
///
/// - `EVAL`/`EVALSHA` (and `_RO`, `FCALL`): the slot of its first key; every key must share it,
///   or the command is refused before sending (`CROSSSLOT`, as the server would answer, but
///   without the round trip and without running anything). No keys: any primary.
/// - keyless commands (`PING`, `INFO`, `PUBLISH`, `SCRIPT`, `CLUSTER`, …): any primary;
/// - every other command, `SPUBLISH` included: the slot of `arguments[1]` (a multi-key command
///   such as `MGET a b` goes by its first key; the server answers `CROSSSLOT` if the rest differ).
enum RedisClusterRoute {
    /// The slot the command must go to; nil for any primary.
    static func slot(of command: ArraySlice<UInt8>) -> Result<Int?, RedisError> {
        var scanner = RESPScanner(command)
        guard let count = scanner.count, count > 0, let nameBytes = scanner.next() else {
            return .failure(.invalidCommand("not a RESP command"))
        }
        // Every command on the message path passes here: its name is compared packed, no `String`.
        let name = CommandName(nameBytes)
        if let name, keyless.contains(name) { return .success(nil) }
        guard count > 1 else { return .success(nil) }
        guard let first = scanner.next() else { return .failure(.invalidCommand("\(spelt(nameBytes)): truncated arguments")) }
        guard let name, scripts.contains(name) else { return .success(RedisSlot.of(first)) }
        // EVALSHA <sha> <numkeys> <key…>: `first` is the script.
        guard let numberBytes = scanner.next(), let keyCount = RESPScanner.decimal(numberBytes),
              keyCount <= count - 3
        else { return .failure(.invalidCommand("\(spelt(nameBytes)) without a valid numkeys")) }
        var slot: Int?
        for index in 0..<keyCount {
            guard let key = scanner.next() else { return .failure(.invalidCommand("\(spelt(nameBytes)): truncated keys")) }
            let keySlot = RedisSlot.of(key)
            if let slot, slot != keySlot {
                return .failure(.invalidCommand(
                    "CROSSSLOT \(spelt(nameBytes)) key \(index + 1) is in slot \(keySlot), key 1 in slot \(slot): keys of one script must share a hash tag"))
            }
            slot = keySlot
        }
        return .success(slot)
    }

    private static func spelt(_ name: ArraySlice<UInt8>) -> String { String(decoding: name, as: UTF8.self).uppercased() }

    private static let scripts: [CommandName] = ["EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"]

    /// Commands without a key: they may go to any primary.
    private static let keyless: [CommandName] = [
        "PING", "ECHO", "INFO", "TIME", "PUBLISH", "PUBSUB", "SCRIPT", "FUNCTION", "CLUSTER", "CONFIG", "CLIENT",
        "COMMAND", "DBSIZE", "FLUSHALL", "FLUSHDB", "KEYS", "SCAN", "RANDOMKEY", "LASTSAVE", "ROLE", "WAIT",
        "SLOWLOG", "LATENCY", "DEBUG", "READONLY", "READWRITE", "ASKING", "HELLO", "AUTH", "SELECT", "SAVE",
        "BGSAVE", "BGREWRITEAOF", "ACL", "MODULE", "MEMORY", "LOLWUT", "MULTI", "EXEC", "DISCARD",
    ]
}

/// A command name of at most 16 bytes, upper-cased and packed into two words, so finding it
/// in a list costs a few integer compares (a longer name is no command routing knows).
struct CommandName: Equatable, ExpressibleByStringLiteral {
    private let high: UInt64
    private let low: UInt64

    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count <= 16, !bytes.contains(0) else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for (offset, byte) in bytes.enumerated() {
            let upper = UInt64(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
            if offset < 8 { words.0 |= upper << (8 * offset) } else { words.1 |= upper << (8 * (offset - 8)) }
        }
        (high, low) = words
    }

    init(stringLiteral name: String) {
        // Only the literals above, all short ASCII names.
        guard let packed = CommandName(ArraySlice(name.utf8)) else { preconditionFailure("command name too long: \(name)") }
        self = packed
    }
}

/// Reads the arguments of a RESP command (`*<count>\r\n` then `$<length>\r\n<bytes>\r\n` each)
/// one by one, skipping payloads without copying them. Bounds-checked: a malformed command ends
/// the scan (`next` returns nil).
struct RESPScanner {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    /// The argument count from the header; nil when the header is malformed.
    private(set) var count: Int?

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
        if position < bytes.endIndex, bytes[position] == UInt8(ascii: "*") {
            position += 1
            count = readNumber()
        }
    }

    mutating func next() -> ArraySlice<UInt8>? {
        guard count != nil, position < bytes.endIndex, bytes[position] == UInt8(ascii: "$") else { return nil }
        position += 1
        guard let length = readNumber(), length <= bytes.endIndex - position - 2 else { return nil }
        let argument = bytes[position..<(position + length)]
        position += length + 2
        return argument
    }

    /// An argument that is a plain non-negative decimal (a script's `numkeys`); nil otherwise.
    static func decimal(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 12 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Decimal digits up to `\r\n` (consumed); nil when malformed or absurdly long.
    private mutating func readNumber() -> Int? {
        var value = 0
        var digits = 0
        while position < bytes.endIndex, bytes[position] != UInt8(ascii: "\r") {
            let byte = bytes[position]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 12 else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        guard digits > 0, position + 1 < bytes.endIndex, bytes[position + 1] == UInt8(ascii: "\n") else { return nil }
        position += 2
        return value
    }
}
