import Foundation
import Testing
import WhisperTesting
@testable import WhisperRuntime

@Suite struct HostResolverTests {
    /// `(returned, on loop, addresses)` as seen by the completion.
    private typealias Seen = (returned: Bool, onLoop: Bool, addresses: [String])

    private static func resolve(_ host: String, port: Int) async throws -> Seen? {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Box<Seen?>(nil)
        loop.execute {
            var returned = false
            HostResolver.resolve(host, port: port, loop: loop) { result in
                let addresses = (try? result.get())?.map(\.description) ?? []
                seen.update { $0 = (returned, loop.inEventLoop, addresses) }
            }
            returned = true
        }
        _ = await eventually(within: 5) { seen.get != nil }
        return seen.get
    }

    @Test func aName_isLookedUpOffTheLoop_andAnsweredOnIt() async throws {
        let seen = try await Self.resolve("localhost", port: 6380)
        #expect(seen?.returned == true, "never from inside resolve")
        #expect(seen?.onLoop == true)
        #expect(seen?.addresses.contains("127.0.0.1:6380") == true, "\(String(describing: seen))")
    }

    @Test func anIPLiteral_isItsOwnAnswer() async throws {
        let seen = try await Self.resolve("::1", port: 7000)
        #expect(seen?.returned == true)
        #expect(seen?.addresses == ["[::1]:7000"])
    }
}
