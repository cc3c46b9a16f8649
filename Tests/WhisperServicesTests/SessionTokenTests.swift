import Testing
import WhisperProtocol
@testable import WhisperServices

@Suite struct SessionTokenTests {
    init() throws { try Sodium.initialize() }

    @Test func token_isCanonicalBase64Of32Bytes_andRoundTrips() throws {
        let token = SessionToken.generate(using: SodiumRandom())
        #expect(token.text.utf8.count == 44)
        let parsed = try #require(SessionToken(text: token.text))
        #expect(parsed.bytes == token.bytes)
        #expect(parsed.hash == token.hash)
        #expect(parsed.hash.constantTimeEquals(token.hash))
    }

    @Test(arguments: ["", "AAAA", String(repeating: "A", count: 42) + "==", String(repeating: "A", count: 44),
                      String(repeating: "A", count: 42) + "B=", String(repeating: "-", count: 43) + "="])
    func presentedTokens_thatAreNot32CanonicalBytes_areRefused(_ text: String) {
        #expect(SessionToken(text: text) == nil)
    }

    @Test func token_andHash_describeThemselvesWithoutTheirValue() {
        let token = SessionToken.generate(using: SodiumRandom())
        #expect("\(token)" == "SessionToken(…)")
        #expect(String(reflecting: token) == "SessionToken(…)")
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains(String(token.bytes[0])) || !dumped.contains(String(token.bytes[1])))
        #expect(!dumped.contains("bytes"))
        let hash = token.hash
        #expect(!"\(hash)".contains(hash.hex))
        #expect(SessionHash(hex: hash.hex) == hash)
        #expect(SessionHash(hex: "zz") == nil)
    }

    @Test func revocationNotice_roundTrips_andRejectsMalformedInput() throws {
        let hashes = (0..<3).map { _ in SessionToken.generate(using: SodiumRandom()).hash }
        let notice = RevocationNotice(reason: .newLogin, whisperId: "WSP-AAAA-AAAA-AAAA",
                                      origin: ConnectionRef(node: "abc", connection: 17), hashes: hashes)
        #expect(RevocationNotice.decode(notice.encoded()) == notice)
        let ban = RevocationNotice(reason: .banned, whisperId: "WSP-AAAA-AAAA-AAAA", origin: nil, hashes: [])
        #expect(RevocationNotice.decode(ban.encoded()) == ban)
        #expect(RevocationNotice.header(reason: .loggedOut, whisperId: "W", origin: nil) == "v1\nlogged_out\nW\n-\n0\n")
        for bad in ["", "v2\nnew_login\nW\n-\n0\n", "v1\nunknown\nW\n-\n0\n", "v1\nnew_login\nW\n-\nx\n",
                    "v1\nnew_login\nW\n-\n0\nnot-hex"] {
            #expect(RevocationNotice.decode(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(RevocationReason.newLogin.closeCode == 4001)
        #expect(RevocationReason.banned.closeCode == 4003)
        #expect(RevocationReason.refreshed.closeCode == nil)
        #expect(RevocationReason.accountDeleted.closeCode == 4004)
        #expect(RevocationReason.adminLogout.closeCode == 4001)
        #expect(RevocationReason.allCases.filter(\.shutsOutIdentity) == [.banned, .accountDeleted])
    }

    @Test func pendingChallenge_roundTrips_withAndWithoutWhisperID() throws {
        let bytes = Sodium.randomBytes(32)
        for id in [nil, WhisperID.random()] {
            let pending = PendingChallenge(challenge: bytes, deviceId: .random(), whisperId: id)
            #expect(PendingChallenge.decode(pending.encoded()) == pending)
        }
        #expect(PendingChallenge.decode(bytes) == nil)
        #expect(PendingChallenge.decode(bytes + Array("not-a-uuid-not-a-uuid-not-a-uuid-xxx".utf8)) == nil)
    }

    @Test func mintedIDs_areChecksumValid_andUseAllSymbols() {
        var seen = Set<Character>()
        let random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            guard let id = WhisperIDMinter.mint(using: random) else {
                Issue.record("mint failed")
                return
            }
            #expect(WhisperID.isValid(id.string))
            seen.formUnion(id.string.dropFirst(4).filter { $0 != "-" })
        }
        #expect(seen.count == 32)
    }
}
