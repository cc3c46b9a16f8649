extension HTTPRequestParser {
    enum ScanOutcome {
        /// The head is `buffer[readIndex..<end]`, ending in CRLF CRLF.
        case complete(end: Int)
        /// Not found yet; this many bytes after `readIndex` have been checked.
        case incomplete(scanned: Int)
        case failure(HTTPParseError)
    }
}

extension HTTPRequestParser {
    /// Looks for the CRLF CRLF ending the head, starting where the last call stopped, never
    /// looking more than `maxHeaderBytes` past the head's start (RFC 9112 §2.2 framing).
    /// Each new byte is checked only against bytes before it, so resuming needs no re-scan.
    mutating func scanHead(alreadyScanned: Int) -> ScanOutcome {
        if alreadyScanned == 0, let failure = skipLeadingEmptyLines() {
            return failure
        }
        let cr = ASCII.cr, lf = ASCII.lf
        let start = readIndex
        // Written so a huge configured limit cannot overflow.
        let limit = buffer.count - start > limits.maxHeaderBytes ? start + limits.maxHeaderBytes : buffer.count
        return buffer.withUnsafeBufferPointer { bytes in
            var i = start + alreadyScanned
            while i < limit {
                let byte = bytes[i]
                let previous: UInt8? = i > start ? bytes[i - 1] : nil
                if previous == cr, byte != lf { return .failure(.invalidLineEnding) }
                if byte == lf {
                    guard previous == cr else { return .failure(.invalidLineEnding) }
                    // CR LF CR LF: the empty line ending the field section.
                    if i - start >= 3, bytes[i - 2] == lf, bytes[i - 3] == cr {
                        return .complete(end: i + 1)
                    }
                }
                i += 1
            }
            // Scanned `maxHeaderBytes` bytes with more waiting and no end in sight.
            if limit < bytes.count {
                return .failure(.headTooLarge)
            }
            return .incomplete(scanned: i - start)
        }
    }

    /// Drops CRLFs before a request-line (RFC 9112 §2.2 "SHOULD ignore at least one empty line").
    /// Returns `.incomplete(0)` when a lone CR waits for its LF, a failure on a bare LF or CR.
    private mutating func skipLeadingEmptyLines() -> ScanOutcome? {
        while readIndex < buffer.count {
            let byte = buffer[readIndex]
            if byte == ASCII.lf { return .failure(.invalidLineEnding) }
            guard byte == ASCII.cr else { return nil }
            guard readIndex + 1 < buffer.count else { return .incomplete(scanned: 0) }
            guard buffer[readIndex + 1] == ASCII.lf else { return .failure(.invalidLineEnding) }
            readIndex += 2
        }
        return nil
    }
}
