// RFC 8259 §6 numbers.
//
//   number = [ minus ] int [ frac ] [ exp ]
//   int    = zero / ( digit1-9 *DIGIT )
//   frac   = decimal-point 1*DIGIT
//   exp    = e [ minus / plus ] 1*DIGIT

extension JSONScanner {
    /// Integers that fit `Int64` become `.int`; everything else `.double`, converted exactly:
    /// small mantissas and exponents take Clinger's fast path (one exact multiply or divide), the
    /// rest go to the stdlib's correctly rounded `Double(_:)`. Out-of-range magnitudes are rejected.
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        let count = bytes.count
        var i = index
        let negative = bytes[i] == ASCII.minus
        if negative { i += 1 }

        // Integer part. `mantissa` collects all significant digits (integer and fraction) while it
        // fits; `mantissaOverflow` records when it stops being exact.
        var mantissa: UInt64 = 0
        var mantissaOverflow = false
        guard i < count, ASCII.isDigit(bytes[i]) else { throw JSONError(.invalidNumber, at: start) }
        if bytes[i] == ASCII.zero {
            i += 1
            if i < count, ASCII.isDigit(bytes[i]) { throw JSONError(.leadingZero, at: start) }
        } else {
            while i < count, ASCII.isDigit(bytes[i]) {
                accumulate(bytes[i], into: &mantissa, overflow: &mantissaOverflow)
                i += 1
            }
        }

        var isInteger = true
        var fractionDigits = 0
        if i < count, bytes[i] == ASCII.dot {
            isInteger = false
            i += 1
            guard i < count, ASCII.isDigit(bytes[i]) else { throw JSONError(.invalidNumber, at: start) }
            while i < count, ASCII.isDigit(bytes[i]) {
                accumulate(bytes[i], into: &mantissa, overflow: &mantissaOverflow)
                fractionDigits += 1
                i += 1
            }
        }

        var exponent = 0
        if i < count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            exponent = try scanExponent(from: &i, numberStart: start)
        }

        guard i - start <= limits.maxNumberBytes else { throw JSONError(.numberTooLong, at: start) }
        index = i

        if isInteger, !mantissaOverflow {
            if !negative, mantissa <= UInt64(Int64.max) {
                return .int(Int64(bitPattern: mantissa))
            }
            if negative, mantissa <= UInt64(Int64.max) + 1 {
                return .int(Int64(bitPattern: 0 &- mantissa))
            }
        }
        return .double(try makeDouble(
            start: start, end: i, negative: negative, mantissa: mantissaOverflow ? nil : mantissa,
            decimalExponent: exponent - fractionDigits
        ))
    }

    /// `e [ minus / plus ] 1*DIGIT`, with `i` on the `e`; leaves `i` after the last digit.
    func scanExponent(from i: inout Int, numberStart: Int) throws(JSONError) -> Int {
        let count = bytes.count
        i += 1
        var negative = false
        if i < count, bytes[i] == ASCII.minus || bytes[i] == ASCII.plus {
            negative = bytes[i] == ASCII.minus
            i += 1
        }
        guard i < count, ASCII.isDigit(bytes[i]) else { throw JSONError(.invalidNumber, at: numberStart) }
        var exponent = 0
        while i < count, ASCII.isDigit(bytes[i]) {
            // Saturate: anything past 10^6 is out of range for Double either way.
            if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[i] &- ASCII.zero) }
            i += 1
        }
        return negative ? -exponent : exponent
    }

    @inline(__always)
    func accumulate(_ digit: UInt8, into mantissa: inout UInt64, overflow: inout Bool) {
        guard !overflow else { return }
        let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(digit &- ASCII.zero))
        if o1 || o2 { overflow = true } else { mantissa = sum }
    }

    func makeDouble(start: Int, end: Int, negative: Bool, mantissa: UInt64?, decimalExponent: Int) throws(JSONError) -> Double {
        // Clinger's fast path: both the mantissa (≤ 2^53) and 10^|e| (|e| ≤ 22) are exact doubles,
        // so one IEEE multiply or divide gives the correctly rounded result.
        if let mantissa, mantissa <= 1 << 53, (-22...22).contains(decimalExponent) {
            let magnitude = Double(mantissa)
            let scaled = decimalExponent >= 0
                ? magnitude * Self.exactPowerOfTen(decimalExponent)
                : magnitude / Self.exactPowerOfTen(-decimalExponent)
            return negative ? -scaled : scaled
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let value = Double(text) else { throw JSONError(.invalidNumber, at: start) }
        guard value.isFinite else { throw JSONError(.numberOutOfRange, at: start) }
        return value
    }

    /// 10^n for 0 ≤ n ≤ 22, all exactly representable.
    @inline(__always)
    static func exactPowerOfTen(_ n: Int) -> Double {
        var result = 1.0
        var remaining = n
        var base = 10.0
        // Square-and-multiply: every intermediate is an exact power of ten ≤ 10^22.
        while remaining > 0 {
            if remaining & 1 == 1 { result *= base }
            remaining >>= 1
            if remaining > 0 { base *= base }
        }
        return result
    }
}
