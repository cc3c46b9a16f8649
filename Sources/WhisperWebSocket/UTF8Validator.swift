/// An incremental UTF-8 validator: a DFA over the well-formed byte sequences of Unicode §3.9
/// Table 3-7 (RFC 3629 §4), so overlong forms, surrogates (U+D800–U+DFFF) and code points past
/// U+10FFFF are rejected at the first octet that makes them impossible.
///
/// State survives between calls, so a code point split across fragments or reads is handled, and
/// invalid input fails as soon as it is seen (RFC 6455 §8.1 allows failing fast). Each octet is
/// looked at once; runs of ASCII are skipped eight at a time.
public struct UTF8Validator: Sendable {
    private var state: UInt8 = UTF8Validator.accept

    public init() {}

    /// True when the input so far ends on a code point boundary and nothing was invalid.
    public var isComplete: Bool { state == Self.accept }

    /// True once any invalid sequence has been seen; stays true until `reset()`.
    public var hasFailed: Bool { state == Self.reject }

    public mutating func reset() {
        state = Self.accept
    }

    /// Feeds more octets; returns false once the input can no longer be valid UTF-8.
    @discardableResult
    public mutating func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, state != Self.reject else { return state != Self.reject }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var s = state
        var i = 0
        Self.classes.withUnsafeBufferPointer { classes in
            Self.transitions.withUnsafeBufferPointer { transitions in
                while i < count {
                    if s == Self.accept {
                        // ASCII fast path: eight octets with no high bit cannot change the state.
                        while i &+ 8 <= count,
                              raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                            i &+= 8
                        }
                        if i == count { break }
                    }
                    let byteClass = classes[Int(base[i])]
                    s = transitions[Int(s) &* Self.classCount &+ Int(byteClass)]
                    if s == Self.reject { break }
                    i &+= 1
                }
            }
        }
        state = s
        return s != Self.reject
    }

    /// Feeds more octets from any collection (contiguous storage is used when available).
    @discardableResult
    public mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ validate($0) }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { validate($0) }
    }

    /// Whether `bytes` is complete, valid UTF-8 on its own.
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }
}

// MARK: - Tables

extension UTF8Validator {
    // States. `need1...need3` expect that many 80–BF continuation octets; the four lead-specific
    // states narrow the second octet (Table 3-7): E0 → A0–BF (no overlong), ED → 80–9F (no
    // surrogates), F0 → 90–BF (no overlong), F4 → 80–8F (≤ U+10FFFF).
    static let accept: UInt8 = 0
    static let reject: UInt8 = 1
    private static let need1: UInt8 = 2
    private static let need2: UInt8 = 3
    private static let need3: UInt8 = 4
    private static let afterE0: UInt8 = 5
    private static let afterED: UInt8 = 6
    private static let afterF0: UInt8 = 7
    private static let afterF4: UInt8 = 8
    private static let stateCount = 9

    // Octet classes.
    private static let ascii: UInt8 = 0        // 00–7F
    private static let cont80: UInt8 = 1       // 80–8F
    private static let cont90: UInt8 = 2       // 90–9F
    private static let contA0: UInt8 = 3       // A0–BF
    private static let invalid: UInt8 = 4      // C0–C1, F5–FF
    private static let lead2: UInt8 = 5        // C2–DF
    private static let leadE0: UInt8 = 6       // E0
    private static let lead3: UInt8 = 7        // E1–EC, EE–EF
    private static let leadED: UInt8 = 8       // ED
    private static let leadF0: UInt8 = 9       // F0
    private static let lead4: UInt8 = 10       // F1–F3
    private static let leadF4: UInt8 = 11      // F4
    static let classCount = 12

    /// Octet → class.
    static let classes: [UInt8] = (0...255).map { (octet: Int) -> UInt8 in
        switch octet {
        case 0x00...0x7F: ascii
        case 0x80...0x8F: cont80
        case 0x90...0x9F: cont90
        case 0xA0...0xBF: contA0
        case 0xC2...0xDF: lead2
        case 0xE0: leadE0
        case 0xE1...0xEC, 0xEE...0xEF: lead3
        case 0xED: leadED
        case 0xF0: leadF0
        case 0xF1...0xF3: lead4
        case 0xF4: leadF4
        default: invalid
        }
    }

    /// (state × class) → next state, built from the rules above so the table is correct by construction.
    static let transitions: [UInt8] = {
        var table = [UInt8](repeating: reject, count: stateCount * classCount)
        func set(_ state: UInt8, _ byteClasses: [UInt8], _ next: UInt8) {
            for byteClass in byteClasses { table[Int(state) * classCount + Int(byteClass)] = next }
        }
        let anyContinuation = [cont80, cont90, contA0]
        set(accept, [ascii], accept)
        set(accept, [lead2], need1)
        set(accept, [leadE0], afterE0)
        set(accept, [lead3], need2)
        set(accept, [leadED], afterED)
        set(accept, [leadF0], afterF0)
        set(accept, [lead4], need3)
        set(accept, [leadF4], afterF4)
        set(need1, anyContinuation, accept)
        set(need2, anyContinuation, need1)
        set(need3, anyContinuation, need2)
        set(afterE0, [contA0], need1)
        set(afterED, [cont80, cont90], need1)
        set(afterF0, [cont90, contA0], need2)
        set(afterF4, [cont80], need2)
        return table
    }()
}
