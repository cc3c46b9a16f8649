import Testing
@testable import WhisperRuntime

/// The layouts of haproxy doc/proxy-protocol.txt §2.2, fed whole, byte by byte and with the
/// stream that follows the header.
@Suite struct ProxyHeaderDecoderTests {
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    static func header(command: UInt8 = 0x21, family: UInt8, block: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
        let length = declaredLength ?? block.count
        return signature + [command, family, UInt8(length >> 8), UInt8(length & 0xFF)] + block
    }

    /// 203.0.113.7:51000 → 10.0.0.5:8080, as HAProxy's `send-proxy-v2` writes it.
    static let tcp4Block: [UInt8] = [203, 0, 113, 7, 10, 0, 0, 5, 0xC7, 0x38, 0x1F, 0x90]
    /// 2001:db8::7 port 443 → 2001:db8::1 port 8080.
    static let tcp6Block: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [7]
        + [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1] + [0x01, 0xBB, 0x1F, 0x90]

    private func decode(_ bytes: [UInt8], max: Int = 2048, chunk: Int? = nil) throws -> (ProxyHeader, Int)? {
        var decoder = ProxyHeaderDecoder(maxHeaderBytes: max)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + (chunk ?? bytes.count))
            let progress = try bytes[offset..<end].withUnsafeBytes { raw in try decoder.feed(raw) }
            if case .complete(let header, let consumed) = progress { return (header, offset + consumed) }
            offset = end
        }
        return nil
    }

    private func error(_ bytes: [UInt8], max: Int = 2048) -> ProxyHeaderError? {
        do {
            _ = try decode(bytes, max: max)
            return nil
        } catch let error as ProxyHeaderError {
            return error
        } catch {
            return nil
        }
    }

    @Test(arguments: [nil, 1, 5])
    func tcp4Proxy_yieldsTheSourceAddressAndPort_inAnyChunking(chunk: Int?) throws {
        let bytes = Self.header(family: 0x11, block: Self.tcp4Block) + Array("GET / HTTP/1.1\r\n".utf8)
        let decoded = try #require(try decode(bytes, chunk: chunk))
        #expect(decoded.0.command == .proxy)
        #expect(decoded.0.source?.ip == "203.0.113.7")
        #expect(decoded.0.source?.port == 51000)
        #expect(decoded.1 == 28, "the header ends after 16 + 12 bytes; the request is left to the stream")
    }

    @Test func tcp6Proxy_yieldsTheIPv6Source() throws {
        let decoded = try #require(try decode(Self.header(family: 0x21, block: Self.tcp6Block)))
        #expect(decoded.0.source?.ip == "2001:db8::7")
        #expect(decoded.0.source?.port == 443)
        #expect(decoded.1 == 52)
    }

    @Test func local_keepsTheSocketPeer_andSkipsItsBlock() throws {
        let healthCheck = try #require(try decode(Self.header(command: 0x20, family: 0x00, block: [])))
        #expect(healthCheck.0.command == .local && healthCheck.0.source == nil && healthCheck.1 == 16)
        // A LOCAL header may still carry addresses (ignored, §2.2).
        let withBlock = try #require(try decode(Self.header(command: 0x20, family: 0x11, block: Self.tcp4Block), chunk: 3))
        #expect(withBlock.0.command == .local && withBlock.0.source == nil && withBlock.1 == 28)
    }

    @Test func proxyOverUnspec_keepsTheSocketPeer() throws {
        let decoded = try #require(try decode(Self.header(family: 0x00, block: [1, 2, 3])))
        #expect(decoded.0.command == .proxy && decoded.0.source == nil && decoded.1 == 19)
    }

    @Test func tlvs_areSkipped_includingEmptyOnes_andTheLengthCountsThem() throws {
        // PP2_TYPE_ALPN "h2", an empty PP2_TYPE_NOOP, PP2_TYPE_AWS with a VPC endpoint id.
        let tlvs: [UInt8] = [0x01, 0x00, 0x02, 0x68, 0x32, 0x04, 0x00, 0x00, 0xEA, 0x00, 0x05, 0x01, 0x76, 0x70, 0x63, 0x65]
        let bytes = Self.header(family: 0x11, block: Self.tcp4Block + tlvs) + [0x16, 0x03, 0x01]
        for chunk in [1, 2, 7, bytes.count] {
            let decoded = try #require(try decode(bytes, chunk: chunk))
            #expect(decoded.0.source?.ip == "203.0.113.7")
            #expect(decoded.1 == 16 + 12 + tlvs.count)
        }
    }

    @Test func aTLVRunningPastTheHeader_isRefused() {
        let overrun: [UInt8] = [0x01, 0x00, 0x09, 0x68, 0x32]
        #expect(error(Self.header(family: 0x11, block: Self.tcp4Block + overrun)) == .badTLV)
        // Two trailing bytes cannot be a TLV's type and length.
        #expect(error(Self.header(family: 0x11, block: Self.tcp4Block + [0x01, 0x00])) == .badTLV)
    }

    @Test func bytesWanted_neverReachesPastTheHeader() throws {
        var decoder = ProxyHeaderDecoder(maxHeaderBytes: 2048)
        #expect(decoder.bytesWanted == 16)
        let bytes = Self.header(family: 0x21, block: Self.tcp6Block + [0x04, 0x00, 0x01, 0x00])
        let fixed = try bytes[0..<16].withUnsafeBytes { raw in try decoder.feed(raw) }
        guard case .needMoreData = fixed else { Issue.record("complete after the fixed part"); return }
        #expect(decoder.bytesWanted == 40)
        _ = try bytes[16..<20].withUnsafeBytes { raw in try decoder.feed(raw) }
        #expect(decoder.bytesWanted == 36)
    }

    @Test func aPlainRequestOrAV1Header_failsOnItsFirstByte() throws {
        for text in ["GET /ws HTTP/1.1\r\n", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n"] {
            var decoder = ProxyHeaderDecoder(maxHeaderBytes: 2048)
            #expect(throws: ProxyHeaderError.badSignature) {
                try Array(text.utf8.prefix(1)).withUnsafeBytes { raw in _ = try decoder.feed(raw) }
            }
        }
    }

    @Test func unknownVersionCommandOrFamily_areRefused() {
        #expect(error(Self.header(command: 0x11, family: 0x11, block: Self.tcp4Block)) == .unsupportedVersion)
        #expect(error(Self.header(command: 0x22, family: 0x11, block: Self.tcp4Block)) == .unsupportedCommand)
        for family: UInt8 in [0x12, 0x22, 0x31, 0x32, 0x41, 0x13] {
            #expect(error(Self.header(family: family, block: Self.tcp4Block)) == .unsupportedAddressFamily)
        }
    }

    @Test func aLengthShortOfTheFamilysAddresses_isRefused() {
        #expect(error(Self.header(family: 0x11, block: Array(Self.tcp4Block.prefix(11)))) == .addressBlockTooShort)
        #expect(error(Self.header(family: 0x21, block: Self.tcp4Block)) == .addressBlockTooShort)
    }

    @Test func theLengthLimit_holdsAtNAndNPlusOne_beforeTheBlockArrives() throws {
        let padding = [0x04, 0x00, 0x09] + [UInt8](repeating: 0, count: 9)  // one NOOP TLV
        let atLimit = Self.header(family: 0x11, block: Self.tcp4Block + padding)  // 40 bytes
        #expect(try decode(atLimit, max: 40)?.1 == 40)
        #expect(error(atLimit, max: 39) == .tooLong)
        // 65,535 declared, nothing of it sent: refused on the 16th byte.
        #expect(error(Array(Self.header(family: 0x11, block: [], declaredLength: 65_535).prefix(16))) == .tooLong)
    }

    @Test func aTruncatedHeader_needsMoreData_andNeverCompletes() throws {
        let whole = Self.header(family: 0x11, block: Self.tcp4Block)
        for cut in [1, 12, 15, 16, 27] {
            #expect(try decode(Array(whole.prefix(cut))) == nil)
        }
    }
}
