/// A Redis command encoded straight into RESP, the protocol's request form, in one buffer:
/// `*<count>\r\n`, then `$<length>\r\n<bytes>\r\n` per argument, written to the socket as they
/// are, so a command costs one growing array instead of an array per argument, an argv and a
/// length table, and a formatting pass.
///
/// The count is not known until the last argument, so the buffer starts with `headerRoom`
/// spare bytes and the header is written right-aligned into them at the end (`finish`):
/// nothing is moved. Binary-safe: arguments are bytes with explicit lengths.
public struct RedisCommand: Sendable {
    private var buffer: [UInt8]
    private let headerRoom: Int
    /// Arguments appended so far.
    public private(set) var count = 0

    /// `headerRoom` should hold the longest header `finish` will write (else `finish` copies).
    init(headerRoom: Int, capacity: Int) {
        self.headerRoom = headerRoom
        buffer = []
        buffer.reserveCapacity(headerRoom + capacity)
        buffer.append(contentsOf: repeatElement(0, count: headerRoom))
    }

    /// Arguments already encoded (the body of another command), `count` of them.
    init(encodedArguments: ArraySlice<UInt8>, count: Int, headerRoom: Int) {
        self.init(headerRoom: headerRoom, capacity: encodedArguments.count)
        buffer.append(contentsOf: encodedArguments)
        self.count = count
    }

    /// A plain command; `capacity` is a hint for the arguments' encoded size.
    public init(capacity: Int = 128) {
        self.init(headerRoom: Self.countHeaderBytes, capacity: capacity)
    }

    public init(_ arguments: [[UInt8]]) {
        self.init(capacity: arguments.reduce(0) { $0 + $1.count + Self.argumentOverhead })
        for argument in arguments { append(argument) }
    }

    /// `*<count>\r\n` for any count that fits an array: at most 20 digits.
    static let countHeaderBytes = 1 + 20 + 2
    /// `$`, up to 10 length digits (arguments are far below 4 GB), two CRLFs.
    static let argumentOverhead = 1 + 10 + 4

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { appendArgument(UnsafeRawBufferPointer($0)) }
    }

    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { appendArgument(UnsafeRawBufferPointer($0)) }
    }

    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { appendArgument(UnsafeRawBufferPointer($0)) }
    }

    public mutating func append(_ value: Int64) {
        var digits = Self.Digits(value)
        withUnsafeBytes(of: &digits.storage) { appendArgument(UnsafeRawBufferPointer(rebasing: $0[digits.range])) }
    }

    public mutating func append(_ value: Int) { append(Int64(value)) }

    /// One argument made of `head` then `tail` (a key: prefix, then the id), without first
    /// building the joined string.
    public mutating func append(_ head: String, _ tail: String) {
        var head = head, tail = tail
        head.withUTF8 { h in tail.withUTF8 { t in appendArgument(UnsafeRawBufferPointer(h), UnsafeRawBufferPointer(t)) } }
    }

    /// One argument made of three parts (a key: prefix, then two ids).
    public mutating func append(_ first: String, _ second: String, _ third: String) {
        var first = first, second = second, third = third
        first.withUTF8 { a in
            second.withUTF8 { b in
                third.withUTF8 { c in
                    appendArgument(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b), UnsafeRawBufferPointer(c))
                }
            }
        }
    }

    /// One argument made of four parts (a key: prefix, id, separator, id).
    public mutating func append(_ first: String, _ second: String, _ third: String, _ fourth: String) {
        var first = first, second = second, third = third, fourth = fourth
        first.withUTF8 { a in
            second.withUTF8 { b in
                third.withUTF8 { c in
                    fourth.withUTF8 { d in
                        appendArgument(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b), UnsafeRawBufferPointer(c),
                                       UnsafeRawBufferPointer(d))
                    }
                }
            }
        }
    }

    /// One argument made of six parts (a key with a hash tag: prefix and `{`, the tagged id,
    /// `}:`, an id, a separator, an id).
    public mutating func append(_ first: String, _ second: String, _ third: String, _ fourth: String, _ fifth: String,
                                _ sixth: String) {
        let length = first.utf8.count + second.utf8.count + third.utf8.count + fourth.utf8.count + fifth.utf8.count
            + sixth.utf8.count
        appendLengthLine(marker: UInt8(ascii: "$"), length)
        appendBytes(of: first)
        appendBytes(of: second)
        appendBytes(of: third)
        appendBytes(of: fourth)
        appendBytes(of: fifth)
        appendBytes(of: sixth)
        buffer.append(UInt8(ascii: "\r"))
        buffer.append(UInt8(ascii: "\n"))
        count += 1
    }

    private mutating func appendBytes(of text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// One argument of up to four parts (no variadic: that would allocate an array).
    private mutating func appendArgument(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer? = nil,
                                         _ third: UnsafeRawBufferPointer? = nil, _ fourth: UnsafeRawBufferPointer? = nil) {
        let length = first.count + (second?.count ?? 0) + (third?.count ?? 0) + (fourth?.count ?? 0)
        appendLengthLine(marker: UInt8(ascii: "$"), length)
        buffer.append(contentsOf: first.assumingMemoryBound(to: UInt8.self))
        if let second { buffer.append(contentsOf: second.assumingMemoryBound(to: UInt8.self)) }
        if let third { buffer.append(contentsOf: third.assumingMemoryBound(to: UInt8.self)) }
        if let fourth { buffer.append(contentsOf: fourth.assumingMemoryBound(to: UInt8.self)) }
        buffer.append(UInt8(ascii: "\r"))
        buffer.append(UInt8(ascii: "\n"))
        count += 1
    }

    private mutating func appendLengthLine(marker: UInt8, _ length: Int) {
        buffer.append(marker)
        // Most arguments are short: their lengths need no digit loop.
        if length < 10 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: length))
        } else if length < 100 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: length / 10))
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: length % 10))
        } else {
            var digits = Self.Digits(Int64(length))
            withUnsafeBytes(of: &digits.storage) { buffer.append(contentsOf: $0[digits.range]) }
        }
        buffer.append(UInt8(ascii: "\r"))
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Finishes the command (call once) and returns its bytes:
    /// the `*<count>` header, then `leading` (arguments already encoded by
    /// `RedisCommand.arguments`, `leadingCount` of them, e.g.
    /// `EVALSHA <sha>`), then `number` as one more argument if given (a script's `numkeys`),
    /// then the appended arguments. The header is written into the room kept at the front,
    /// so nothing is copied; the returned slice shares the buffer. Arguments appended after
    /// `finish` are not part of it.
    mutating func finish(leading: [UInt8] = [], leadingCount: Int = 0, number: Int? = nil) -> ArraySlice<UInt8> {
        let numberDigits = number.map { Self.Digits(Int64($0)) }
        let total = count + leadingCount + (number == nil ? 0 : 1)
        var totalDigits = Self.Digits(Int64(total))
        var needed = 1 + totalDigits.range.count + 2 + leading.count
        if let numberDigits { needed += 1 + Self.Digits(Int64(numberDigits.range.count)).range.count + 4 + numberDigits.range.count }
        guard needed <= headerRoom else {
            // Only a caller that under-sized the room gets here: build the command afresh.
            var fresh = RedisCommand(headerRoom: needed, capacity: buffer.count - headerRoom)
            fresh.buffer.append(contentsOf: buffer[headerRoom...])
            fresh.count = count
            return fresh.finish(leading: leading, leadingCount: leadingCount, number: number)
        }
        // Written forwards into the room, ending exactly where the arguments begin.
        let start = headerRoom - needed
        buffer.withUnsafeMutableBufferPointer { room in
            var at = start
            func put(_ byte: UInt8) {
                room[at] = byte
                at += 1
            }
            func put(_ digits: inout Digits) {
                withUnsafeBytes(of: &digits.storage) { for byte in $0[digits.range] { put(byte) } }
            }
            put(UInt8(ascii: "*"))
            put(&totalDigits)
            put(UInt8(ascii: "\r"))
            put(UInt8(ascii: "\n"))
            for byte in leading { put(byte) }
            if var digits = numberDigits {
                var lengthDigits = Self.Digits(Int64(digits.range.count))
                put(UInt8(ascii: "$"))
                put(&lengthDigits)
                put(UInt8(ascii: "\r"))
                put(UInt8(ascii: "\n"))
                put(&digits)
                put(UInt8(ascii: "\r"))
                put(UInt8(ascii: "\n"))
            }
        }
        return buffer[start...]
    }

    /// Arguments encoded on their own (no `*` header), to go first in another command.
    static func arguments(_ arguments: [String]) -> [UInt8] {
        var command = RedisCommand(headerRoom: 0, capacity: arguments.reduce(0) { $0 + $1.utf8.count + argumentOverhead })
        for argument in arguments { command.append(argument) }
        return command.buffer
    }

    /// Decimal digits of an integer without a `String`: written right-aligned in a fixed
    /// 24-byte tuple (enough for `Int64.min`).
    private struct Digits {
        var storage: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var range: Range<Int>

        init(_ value: Int64) {
            var start = 24
            var magnitude = value.magnitude
            storage = (0, 0, 0)
            range = 0..<0
            withUnsafeMutableBytes(of: &storage) { raw in
                repeat {
                    start -= 1
                    raw[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                if value < 0 {
                    start -= 1
                    raw[start] = UInt8(ascii: "-")
                }
            }
            range = start..<24
        }
    }
}
