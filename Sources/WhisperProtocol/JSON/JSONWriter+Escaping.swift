extension JSONWriter {
    /// Strings and keys are escaped by `JSONString`, the one JSON string escaper.
    mutating func appendQuoted(_ string: String) {
        JSONString.appendQuoted(string, to: &bytes)
    }
}

/// Decimal text of an `Int64` (no allocation beyond the destination's growth).
func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
    var magnitude = value.magnitude
    if value < 0 { bytes.append(ASCII.minus) }
    var digitCount = 1
    var probe = magnitude
    while probe >= 10 {
        probe /= 10
        digitCount += 1
    }
    let end = bytes.count + digitCount
    bytes.append(contentsOf: repeatElement(ASCII.zero, count: digitCount))
    bytes.withUnsafeMutableBufferPointer { buffer in
        var position = end
        repeat {
            position -= 1
            buffer[position] = ASCII.zero &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }
}
