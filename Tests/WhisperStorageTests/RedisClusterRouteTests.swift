import Testing
@testable import WhisperStorage

@Suite("RedisClusterRoute: which slot a command goes to")
struct RedisClusterRouteTests {
    private func slot(_ arguments: [String]) -> Result<Int?, RedisError> {
        var command = RedisCommand(arguments.map { Array($0.utf8) })
        return RedisClusterRoute.slot(of: command.finish())
    }

    @Test func ordinaryCommand_goesByItsFirstArgument() {
        #expect(slot(["SET", "foo", "1"]) == .success(12_182))
        #expect(slot(["get", "{bar}x"]) == .success(5_061))
        #expect(slot(["SPUBLISH", "hello", "payload"]) == .success(866))
    }

    @Test func names_matchInAnyCase_andALongOrOddNameIsAnOrdinaryCommand() {
        #expect(slot(["EvalSha", "sha", "1", "{u1}:a"]) == .success(RedisSlot.of("u1")))
        #expect(slot(["cluster", "slots"]) == .success(nil))
        #expect(slot(["BGREWRITEAOF"]) == .success(nil))
        // Not a command routing knows: routed by its first argument, as Redis would look it up.
        #expect(slot(["PINGPINGPINGPINGPING", "foo"]) == .success(12_182))
        #expect(slot(["PING\u{0}", "foo"]) == .success(12_182))
    }

    @Test func keylessCommands_goToAnyPrimary() {
        for arguments in [["PING"], ["INFO", "server"], ["PUBLISH", "foo", "x"], ["CLUSTER", "SLOTS"], ["script", "load", "x"]] {
            #expect(slot(arguments) == .success(nil), "\(arguments)")
        }
    }

    @Test func script_goesByItsFirstKey_whenAllShareTheSlot() {
        #expect(slot(["EVALSHA", "sha", "2", "{u1}:a", "{u1}:b", "arg"]) == .success(RedisSlot.of("u1")))
        #expect(slot(["EVAL", "return 1", "0", "arg"]) == .success(nil))
    }

    @Test func script_withKeysInTwoSlots_isRefusedAsCrossSlot() {
        guard case .failure(.invalidCommand(let reason)) = slot(["EVALSHA", "sha", "2", "{u1}:a", "{u2}:b"]) else {
            Issue.record("cross-slot script was not refused")
            return
        }
        #expect(reason.hasPrefix("CROSSSLOT"))
    }

    @Test func script_withABadKeyCount_isRefused() {
        for numkeys in ["x", "-1", "3", ""] {
            guard case .failure(.invalidCommand) = slot(["EVALSHA", "sha", numkeys, "k1", "k2"]) else {
                Issue.record("numkeys \(numkeys) accepted")
                continue
            }
        }
    }

    @Test func malformedRESP_isRefused_neverReadPastTheEnd() {
        for bytes in ["", "*", "*1\r\n", "*1\r\n$5\r\nab", "*2\r\n$3\r\nGET\r\n$99\r\nfoo\r\n", "GET foo\r\n", "*x\r\n"] {
            let encoded = ArraySlice(Array(bytes.utf8))
            switch RedisClusterRoute.slot(of: encoded) {
            case .failure(.invalidCommand): break
            default: Issue.record("\(bytes.debugDescription) routed")
            }
        }
    }
}
