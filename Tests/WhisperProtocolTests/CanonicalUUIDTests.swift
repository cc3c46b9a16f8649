import Testing
@testable import WhisperProtocol
import WhisperTesting

@Suite struct CanonicalUUIDTests {
    @Test func anyCase_isAccepted_andNormalisedToLowercase() {
        #expect(CanonicalUUID("3F2504E0-4F89-11D3-9A0C-0305E82C3301")?.string == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(CanonicalUUID("3f2504e0-4f89-11d3-9a0c-0305e82c3301")?.string == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(CanonicalUUID("3f2504E0-4f89-11D3-9a0c-0305e82C3301")?.string == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
    }

    @Test(arguments: [
        "", "3f2504e0-4f89-11d3-9a0c-0305e82c330", "3f2504e0-4f89-11d3-9a0c-0305e82c33011",
        "3f2504e04f8911d39a0c0305e82c3301", "{3f2504e0-4f89-11d3-9a0c-0305e82c3301}",
        "3f2504e0-4f89-11d3-9a0c_0305e82c3301", "3f2504e0-4f8-911d3-9a0c-0305e82c3301",
        "3g2504e0-4f89-11d3-9a0c-0305e82c3301", " 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "3f2504e0-4f89-11d3-9a0c-0305e82c330é",
    ])
    func nonCanonicalLayouts_areRejected(_ input: String) {
        #expect(CanonicalUUID(input) == nil)
        #expect(!CanonicalUUID.isValid(input))
    }

    @Test func comparison_isByValue_ignoringCase() {
        #expect(CanonicalUUID.equal("A0000000-0000-4000-8000-00000000000B", "a0000000-0000-4000-8000-00000000000b"))
        #expect(!CanonicalUUID.equal("a0000000-0000-4000-8000-00000000000b", "a0000000-0000-4000-8000-00000000000c"))
        #expect(!CanonicalUUID.equal("not-a-uuid", "not-a-uuid"))
        #expect(CanonicalUUID("ABCDEF00-0000-4000-8000-000000000000") == CanonicalUUID("abcdef00-0000-4000-8000-000000000000"))
    }

    @Test func randomUUIDs_areVersion4AndValid() {
        var generator = SplitMix64(seed: 1)
        var seen = Set<CanonicalUUID>()
        for _ in 0..<100 {
            let uuid = CanonicalUUID.random(using: &generator)
            #expect(CanonicalUUID(uuid.string) == uuid)
            let utf8 = Array(uuid.string.utf8)
            #expect(utf8[14] == UInt8(ascii: "4"))
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(utf8[19]))
            seen.insert(uuid)
        }
        #expect(seen.count == 100)
    }

    @Test func groupIDs_arePrefixedLowercaseUUIDs() {
        #expect(GroupID("grp-3F2504E0-4F89-11D3-9A0C-0305E82C3301")?.string == "grp-3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(GroupID("GRP-3f2504e0-4f89-11d3-9a0c-0305e82c3301") == nil)
        #expect(GroupID("3f2504e0-4f89-11d3-9a0c-0305e82c3301") == nil)
        #expect(GroupID("grp-") == nil)
        #expect(GroupID(GroupID.random().string) != nil)
    }
}
