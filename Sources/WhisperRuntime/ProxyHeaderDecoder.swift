#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Incremental decoder of a PROXY protocol v2 header (haproxy doc/proxy-protocol.txt §2.2):
///
/// ```
///  0                   12      13      14              16
/// +-----------------------+-------+-------+---------------+---------------------------+
/// | \r\n\r\n\0\r\nQUIT\n   |ver|cmd|fam|prt| length (BE16) | addresses, then TLVs ...  |
/// +-----------------------+-------+-------+---------------+---------------------------+
///   TCP/IPv4 addresses: src(4) dst(4) srcport(2) dstport(2) = 12 bytes
///   TCP/IPv6 addresses: src(16) dst(16) srcport(2) dstport(2) = 36 bytes
///   TLV: type(1) length(BE16) value(length) — skipped, each one checked to end inside the header
/// ```
///
/// Every byte is checked the moment it arrives (a plain HTTP request fails on its first byte),
/// the length against `maxHeaderBytes` as soon as it is known, and nothing past the addresses is
/// kept. `bytesWanted` says how many more bytes the header needs, so a reader that asks the
/// socket for no more than that never takes a byte of what follows (TLS, HTTP).
public struct ProxyHeaderDecoder {
    public enum Progress {
        case needMoreData
        /// The header ended after `consumed` bytes of the last `feed`; the rest belong to the stream.
        case complete(ProxyHeader, consumed: Int)
    }

    private enum Phase {
        /// Within the 16 fixed bytes.
        case fixed
        /// Within the address block of the family (`addressLength` bytes kept in `addresses`).
        case addresses
        /// Between TLVs, or within a TLV's 3-byte type and length.
        case tlvHeader
        /// Within a TLV's value (`tlvRemaining` bytes to skip).
        case tlvValue
        /// Within a block that is skipped whole (LOCAL, UNSPEC).
        case skipping
        case done
    }

    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    static let fixedLength = 16

    public let maxHeaderBytes: Int
    private var phase = Phase.fixed
    /// Bytes of the fixed part received.
    private var fixedCount = 0
    private var command = ProxyHeader.Command.local
    private var familyByte: UInt8 = 0
    private var lengthHigh: UInt8 = 0
    /// Bytes of the header (after the fixed 16) not yet received.
    private var blockRemaining = 0
    private var addressLength = 0
    private var addresses: [UInt8] = []
    private var tlvHeader: (UInt8, UInt8, UInt8) = (0, 0, 0)
    private var tlvHeaderCount = 0
    private var tlvRemaining = 0

    /// `maxHeaderBytes` bounds the whole header, the 16 fixed bytes included.
    public init(maxHeaderBytes: Int) {
        self.maxHeaderBytes = max(maxHeaderBytes, Self.fixedLength)
    }

    /// How many more bytes the header needs at least (exactly, once the length is known).
    public var bytesWanted: Int {
        switch phase {
        case .fixed: return Self.fixedLength - fixedCount
        case .done: return 0
        default: return blockRemaining
        }
    }

    /// Takes the next bytes of the stream.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(ProxyHeaderError) -> Progress {
        var index = 0
        while phase != .done, index < bytes.count {
            switch phase {
            case .fixed:
                try fixedByte(bytes[index])
                index += 1
            case .addresses:
                let take = min(addressLength - addresses.count, bytes.count - index)
                addresses.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take
                blockRemaining -= take
                if addresses.count == addressLength { try startTLV() }
            case .tlvHeader:
                try tlvHeaderByte(bytes[index])
                index += 1
            case .tlvValue:
                let take = min(tlvRemaining, bytes.count - index)
                index += take
                blockRemaining -= take
                tlvRemaining -= take
                if tlvRemaining == 0 { try startTLV() }
            case .skipping:
                let take = min(blockRemaining, bytes.count - index)
                index += take
                blockRemaining -= take
                if blockRemaining == 0 { phase = .done }
            case .done:
                break
            }
        }
        return phase == .done ? .complete(header(), consumed: index) : .needMoreData
    }

    private mutating func fixedByte(_ byte: UInt8) throws(ProxyHeaderError) {
        let position = fixedCount
        fixedCount += 1
        switch position {
        case 0..<12:
            guard byte == Self.signature[position] else { throw .badSignature }
        case 12:
            guard byte >> 4 == 2 else { throw .unsupportedVersion }
            switch byte & 0x0F {
            case 0: command = .local
            case 1: command = .proxy
            default: throw .unsupportedCommand
            }
        case 13:
            familyByte = byte
        case 14:
            lengthHigh = byte
        default:
            try lengthComplete(Int(lengthHigh) << 8 | Int(byte))
        }
    }

    /// Byte 16: the length is known, so every bound is checked now, before any of the block arrives.
    private mutating func lengthComplete(_ length: Int) throws(ProxyHeaderError) {
        guard Self.fixedLength + length <= maxHeaderBytes else { throw .tooLong }
        blockRemaining = length
        switch (command, familyByte) {
        case (.local, _), (.proxy, 0x00):
            // §2.2: LOCAL, and UNSPEC with PROXY: keep the real endpoints, discard the block.
            addressLength = 0
            phase = .skipping
        case (.proxy, 0x11):
            addressLength = 12
            phase = .addresses
        case (.proxy, 0x21):
            addressLength = 36
            phase = .addresses
        default:
            throw .unsupportedAddressFamily
        }
        guard length >= addressLength else { throw .addressBlockTooShort }
        addresses.reserveCapacity(addressLength)
        if length == 0 { phase = .done }
    }

    /// After the addresses and after each TLV: the header ends exactly here, or another whole
    /// TLV type and length must fit in what is left.
    private mutating func startTLV() throws(ProxyHeaderError) {
        if blockRemaining == 0 {
            phase = .done
        } else if blockRemaining < 3 {
            throw .badTLV
        } else {
            phase = .tlvHeader
        }
    }

    private mutating func tlvHeaderByte(_ byte: UInt8) throws(ProxyHeaderError) {
        switch tlvHeaderCount {
        case 0: tlvHeader.0 = byte
        case 1: tlvHeader.1 = byte
        default: tlvHeader.2 = byte
        }
        tlvHeaderCount += 1
        blockRemaining -= 1
        guard tlvHeaderCount == 3 else { return }
        tlvHeaderCount = 0
        let valueLength = Int(tlvHeader.1) << 8 | Int(tlvHeader.2)
        guard valueLength <= blockRemaining else { throw .badTLV }
        tlvRemaining = valueLength
        if valueLength > 0 { phase = .tlvValue } else { try startTLV() }
    }

    private func header() -> ProxyHeader {
        guard command == .proxy, addressLength > 0 else { return ProxyHeader(command: command, source: nil) }
        let source = addresses.withUnsafeBytes { raw -> SocketAddress in
            let isIPv6 = addressLength == 36
            let addressBytes = isIPv6 ? 16 : 4
            let port = UInt16(raw[2 * addressBytes]) << 8 | UInt16(raw[2 * addressBytes + 1])
            return SocketAddress(rawAddress: UnsafeRawBufferPointer(rebasing: raw[0..<addressBytes]), port: port)
        }
        return ProxyHeader(command: .proxy, source: source)
    }
}
