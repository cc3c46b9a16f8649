import WhisperOps

/// Which accepted connections open with a PROXY protocol v2 header: those whose socket peer lies
/// in `trustedSources` (the load balancers). Any other connection is a direct client, and its
/// bytes are never read as a header — a forged header from outside fails as a bad HTTP request.
public struct ProxyProtocolPolicy: Sendable {
    public let trustedSources: [CIDRBlock]
    /// The whole header, fixed part and TLVs, past which the connection is closed.
    public let maxHeaderBytes: Int

    public init(trustedSources: [CIDRBlock], maxHeaderBytes: Int) {
        self.trustedSources = trustedSources
        self.maxHeaderBytes = maxHeaderBytes
    }

    public func trusts(_ peer: SocketAddress) -> Bool {
        peer.withAddressBytes { bytes in trustedSources.contains { $0.contains(addressBytes: bytes) } }
    }
}
