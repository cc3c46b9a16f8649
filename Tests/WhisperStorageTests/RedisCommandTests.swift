import Testing
@testable import WhisperStorage

@Suite("RESP encoding of commands (no server)")
struct RedisCommandTests {
    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func plainCommand_isEncodedAsARESPArrayOfBulkStrings() {
        var command = RedisCommand([Array("SET".utf8), Array("k".utf8), [0, 13, 10, 255]])
        let bytes = command.finish()
        #expect(Array(bytes) == Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\n".utf8) + [0, 13, 10, 255] + Array("\r\n".utf8))
    }

    @Test func partsIntegersAndEmptyArguments_areOneArgumentEach() {
        var command = RedisCommand()
        command.append("pre:", "id")
        command.append("a", "b", "c")
        command.append("w:", "x", ":", "y")
        command.append("m:{", "to", "}:", "from", ":", "id")
        command.append(Int64(-9_223_372_036_854_775_808))
        command.append(0)
        command.append("")
        #expect(Self.text(command.finish()) == "*7\r\n$6\r\npre:id\r\n$3\r\nabc\r\n$5\r\nw:x:y\r\n"
                + "$14\r\nm:{to}:from:id\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n$0\r\n\r\n")
    }

    @Test func manyArguments_countWithMoreDigits_inTheSameRoom() {
        var command = RedisCommand()
        for i in 0..<1234 { command.append(i) }
        let text = Self.text(command.finish())
        #expect(text.hasPrefix("*1234\r\n$1\r\n0\r\n$1\r\n1\r\n"))
        #expect(text.hasSuffix("$4\r\n1233\r\n"))
    }

    @Test func scriptCall_isEvalshaWithNumkeys_andEvalCarriesTheSourceAndTheSameBody() {
        let script = RedisScript(source: "return KEYS[1]")
        let call = RedisScriptCall(script, keys: { $0.append("k1"); $0.append("k2") }, arguments: { $0.append("v") })
        #expect(Self.text(call.evalsha) == "*6\r\n$7\r\nEVALSHA\r\n$40\r\n\(script.sha1)\r\n$1\r\n2\r\n$2\r\nk1\r\n$2\r\nk2\r\n$1\r\nv\r\n")
        #expect(Self.text(call.eval) == "*6\r\n$4\r\nEVAL\r\n$14\r\nreturn KEYS[1]\r\n$1\r\n2\r\n$2\r\nk1\r\n$2\r\nk2\r\n$1\r\nv\r\n")
    }

    @Test func scriptCall_fromArrays_matchesTheClosureForm() {
        let script = RedisScript(source: "return 1")
        let arrays = RedisScriptCall(script, keys: [Array("a".utf8)], arguments: [[], Array("xyz".utf8)])
        let closures = RedisScriptCall(script, keys: { $0.append("a") }, arguments: { $0.append(""); $0.append("xyz") })
        #expect(Array(arrays.evalsha) == Array(closures.evalsha))
        #expect(Self.text(arrays.evalsha).hasSuffix("$1\r\n1\r\n$1\r\na\r\n$0\r\n\r\n$3\r\nxyz\r\n"))
    }
}
