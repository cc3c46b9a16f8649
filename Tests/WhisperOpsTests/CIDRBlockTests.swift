import Testing
@testable import WhisperOps

@Suite struct CIDRBlockTests {
    private func contains(_ block: String, _ address: [UInt8]) -> Bool {
        guard let block = CIDRBlock(block) else { return false }
        return address.withUnsafeBytes { block.contains(addressBytes: $0) }
    }

    @Test func ipv4Blocks_containTheirAddresses_atEveryPrefixEdge() {
        #expect(contains("10.0.0.0/8", [10, 255, 1, 2]))
        #expect(!contains("10.0.0.0/8", [11, 0, 0, 0]))
        #expect(contains("192.168.1.0/24", [192, 168, 1, 255]))
        #expect(!contains("192.168.1.0/24", [192, 168, 2, 0]))
        #expect(contains("192.168.1.128/25", [192, 168, 1, 128]))
        #expect(!contains("192.168.1.128/25", [192, 168, 1, 127]))
        #expect(contains("127.0.0.1", [127, 0, 0, 1]), "a bare address is one host")
        #expect(!contains("127.0.0.1/32", [127, 0, 0, 2]))
        #expect(contains("0.0.0.0/0", [8, 8, 8, 8]))
    }

    @Test func ipv6Blocks_containTheirAddresses_acrossTheWordBoundary() {
        let inside: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0xAB, count: 12)
        #expect(contains("2001:db8::/32", inside))
        #expect(!contains("2001:db9::/32", inside))
        #expect(contains("::/0", inside))
        #expect(contains("fd00::/8", [0xFD] + [UInt8](repeating: 1, count: 15)))
        let host: [UInt8] = [UInt8](repeating: 0, count: 15) + [1]
        #expect(contains("::1", host) && contains("::1/128", host))
        #expect(!contains("::1/128", [UInt8](repeating: 0, count: 15) + [2]))
        // /65 splits the low word.
        let a = [UInt8](repeating: 0, count: 8) + [0x80] + [UInt8](repeating: 0, count: 7)
        let b = [UInt8](repeating: 0, count: 16)
        #expect(contains("::8000:0:0:0/65", a) && !contains("::8000:0:0:0/65", b))
    }

    @Test func ipv4MappedPeers_matchIPv4Blocks_andFamiliesOtherwiseNeverMix() {
        let mapped: [UInt8] = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 1, 2, 3]
        #expect(contains("10.0.0.0/8", mapped), "a dual-stack listener sees IPv4 balancers this way")
        #expect(!contains("::/0", [10, 1, 2, 3]))
        #expect(!contains("0.0.0.0/0", [UInt8](repeating: 0, count: 15) + [1]))
    }

    @Test(arguments: ["", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.1/8", "10.0.0.0/-1", "10.0.0.0/+8",
                      "10.0.0.0/ 8", "10.0.0/8", "fe80::1%eth0", "host.example", "10.0.0.0/8/8", "::1/0128"])
    func malformedBlocks_areRefused(_ text: String) {
        #expect(CIDRBlock(text) == nil)
    }

    @Test func description_isTheCanonicalForm() {
        #expect(CIDRBlock("10.0.0.0/8")?.description == "10.0.0.0/8")
        #expect(CIDRBlock("2001:0db8:0000::/32")?.description == "2001:db8::/32")
        #expect(CIDRBlock("127.0.0.1")?.description == "127.0.0.1/32")
    }
}

@Suite struct ProxyProtocolSettingsTests {
    @Test func offByDefault() throws {
        #expect(try loadConfig([:]).proxyProtocol == nil)
    }

    @Test func on_readsEveryCIDR_ofBothFamilies() throws {
        let config = try loadConfig(["WHISPER_PROXY_PROTOCOL": "1",
                                     "WHISPER_PROXY_PROTOCOL_SOURCES": " 10.0.0.0/8, fd00::/8 ,127.0.0.1"])
        #expect(config.proxyProtocol?.trustedSources.map(\.description) == ["10.0.0.0/8", "fd00::/8", "127.0.0.1/32"])
        #expect(config.redactedSummary().contains { $0 == ("proxyProtocol", "v2 from 10.0.0.0/8,fd00::/8,127.0.0.1/32") })
    }

    @Test func on_withoutSources_refusesToStart() {
        let error = configError(["WHISPER_PROXY_PROTOCOL": "yes"])
        #expect(error?.variable == "WHISPER_PROXY_PROTOCOL_SOURCES")
        #expect(error?.description.contains("required when WHISPER_PROXY_PROTOCOL=1") == true)
    }

    @Test func aBadSource_refusesToStart_evenWhileOff() {
        for environment in [["WHISPER_PROXY_PROTOCOL": "1", "WHISPER_PROXY_PROTOCOL_SOURCES": "10.0.0.0/8,10.1.2.3/16"],
                            ["WHISPER_PROXY_PROTOCOL_SOURCES": "10.0.0.0/8,"]] {
            let error = configError(environment)
            #expect(error?.variable == "WHISPER_PROXY_PROTOCOL_SOURCES")
            #expect(error?.description.hasPrefix("WHISPER_PROXY_PROTOCOL_SOURCES: expected comma-separated IPv4/IPv6 CIDRs") == true)
        }
        #expect(configError(["WHISPER_PROXY_PROTOCOL": "maybe"])?.variable == "WHISPER_PROXY_PROTOCOL")
    }

    @Test func sourcesWhileOff_areCheckedButUnused() throws {
        #expect(try loadConfig(["WHISPER_PROXY_PROTOCOL_SOURCES": "10.0.0.0/8"]).proxyProtocol == nil)
    }
}
