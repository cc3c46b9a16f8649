import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketConnectionTests {
    let second: UInt64 = 1_000_000_000

    func connection(_ configuration: WebSocketConfiguration = WebSocketConfiguration()) -> WebSocketConnection {
        WebSocketConnection(configuration: configuration, now: 0)
    }

    func closeFrame(_ code: UInt16) -> WebSocketAction {
        .send(WebSocketFrameEncoder.close(code: WebSocketCloseCode(rawValue: code)))
    }

    // MARK: Messages

    @Test func textMessages_areDelivered() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.text("Hello"), now: 1) == [.deliverText(Array("Hello".utf8))])
    }

    @Test func messages_areDelivered_whenReadsSplitAtEveryBoundary() {
        let stream = ClientFrames.text("Hel", fin: false) + ClientFrames.ping([7]) + ClientFrames.continuation("lo") + ClientFrames.text("!")
        let expected: [WebSocketAction] = [.send(WebSocketFrameEncoder.pong([7])), .deliverText(Array("Hello".utf8)), .deliverText(Array("!".utf8))]
        for cut in 0...stream.count {
            var ws = connection()
            let actions = ws.receive(stream[..<cut], now: 1) + ws.receive(stream[cut...], now: 2)
            #expect(actions == expected, "cut at \(cut)")
        }
    }

    @Test func ping_isAnsweredWithPong_betweenFragments() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.text("a", fin: false), now: 1).isEmpty)
        #expect(ws.receive(ClientFrames.ping(Array("hi".utf8)), now: 1) == [.send([0x8A, 0x02, 0x68, 0x69])])
        #expect(ws.receive(ClientFrames.continuation("b"), now: 1) == [.deliverText(Array("ab".utf8))])
    }

    @Test func connection_sendsCompressedTextAndInflatesCompressedInput_whenNegotiated() {
        let deflate = DeflateParameters()
        var ws = connection(WebSocketConfiguration(deflate: deflate))
        #expect(ws.sendText(Array("Hello".utf8)) == [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        let compressed = ClientFrames.frame(0x1, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], rsv: 0x40)
        #expect(ws.receive(compressed, now: 1) == [.deliverText(Array("Hello".utf8))])
    }

    // MARK: Limits

    @Test func messageOfExactlyTheCap_isAccepted_andOneOverCloses1009() {
        var ws = connection(WebSocketConfiguration(maxMessageBytes: 100))
        let exact = String(repeating: "a", count: 100)
        #expect(ws.receive(ClientFrames.text(exact), now: 1) == [.deliverText(Array(exact.utf8))])
        let over = ClientFrames.text(String(repeating: "a", count: 101))
        // The header alone is enough to refuse it.
        #expect(ws.receive(over[..<8], now: 2) == [closeFrame(1009), .close(afterFlush: true)])
        #expect(ws.closeCode == .messageTooBig)
    }

    @Test func connection_closes1009_whenFragmentsAddUpPastTheCap() {
        var ws = connection(WebSocketConfiguration(maxMessageBytes: 100))
        #expect(ws.receive(ClientFrames.text(String(repeating: "a", count: 60), fin: false), now: 1).isEmpty)
        #expect(ws.receive(ClientFrames.continuation(String(repeating: "a", count: 41)), now: 1) == [closeFrame(1009), .close(afterFlush: true)])
    }

    @Test func connection_closes1009_onACompressedBomb() {
        let deflate = DeflateParameters()
        let bomb = DeflateCompressor(parameters: deflate).compress([UInt8](repeating: 0x61, count: 600_000)) ?? []
        var ws = connection(WebSocketConfiguration(deflate: deflate))
        #expect(ws.receive(ClientFrames.frame(0x1, bomb, rsv: 0x40), now: 1) == [closeFrame(1009), .close(afterFlush: true)])
    }

    // MARK: Protocol errors

    @Test func connection_closes1002_onAnUnmaskedFrame() {
        var ws = connection()
        #expect(ws.receive([0x81, 0x02, 0x68, 0x69], now: 1) == [closeFrame(1002), .close(afterFlush: true)])
        #expect(ws.state == .closed)
        #expect(ws.receive(ClientFrames.text("late"), now: 2).isEmpty)
        #expect(ws.sendText([0x41]) == nil)
    }

    @Test func connection_closes1002_onABadContinuation() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.continuation("x"), now: 1) == [closeFrame(1002), .close(afterFlush: true)])
    }

    @Test func connection_closes1007_onInvalidUTF8_beforeTheFrameIsComplete() {
        var ws = connection()
        let frame = ClientFrames.frame(0x1, [0x41, 0xFF] + Array(repeating: 0x41, count: 50))
        #expect(ws.receive(frame[..<9], now: 1) == [closeFrame(1007), .close(afterFlush: true)])
    }

    @Test func connection_closes1003_onBinary_asSoonAsTheHeaderArrives() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.frame(0x2, [1, 2, 3])[..<6], now: 1) == [closeFrame(1003), .close(afterFlush: true)])
    }

    @Test func binaryMessages_areDelivered_whenConfiguredTo() {
        var ws = connection(WebSocketConfiguration(acceptsBinaryMessages: true))
        #expect(ws.receive(ClientFrames.frame(0x2, [1, 2, 3]), now: 1) == [.deliverBinary([1, 2, 3])])
    }

    @Test func framesAfterAProtocolError_areIgnored_inTheSameRead() {
        var ws = connection()
        let actions = ws.receive(ClientFrames.text("ok") + [0x81, 0x00] + ClientFrames.text("never"), now: 1)
        #expect(actions == [.deliverText(Array("ok".utf8)), closeFrame(1002), .close(afterFlush: true)])
    }

    // MARK: Closing handshake

    @Test func connection_echoesThePeersCloseCode_andCloses() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.close(4000, reason: Array("bye".utf8)), now: 1) == [closeFrame(4000), .close(afterFlush: true)])
        #expect(ws.state == .closed)
    }

    @Test func emptyClose_isAnsweredWith1000() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.close(nil), now: 1) == [closeFrame(1000), .close(afterFlush: true)])
    }

    @Test func connection_closes1002_onAnInvalidCloseCode() {
        var ws = connection()
        #expect(ws.receive(ClientFrames.close(1005), now: 1) == [closeFrame(1002), .close(afterFlush: true)])
    }

    @Test func serverInitiatedClose_waitsForTheReply_thenCloses() {
        var ws = connection()
        let revoked = WebSocketCloseCode(rawValue: 4001)
        #expect(ws.initiateClose(code: revoked, reason: "revoked", now: 5) == [.send(WebSocketFrameEncoder.close(code: revoked, reason: "revoked"))])
        #expect(ws.state == .closing(since: 5))
        #expect(ws.sendText([0x41]) == nil)
        #expect(ws.receive(ClientFrames.text("ignored") + ClientFrames.ping(), now: 6).isEmpty)
        #expect(ws.receive(ClientFrames.close(4001), now: 7) == [.close(afterFlush: true)])
        #expect(ws.state == .closed)
        #expect(ws.closeCode == revoked)
    }

    @Test func closeHandshake_isGivenUp_afterTheCloseTimeout() {
        var ws = connection(WebSocketConfiguration(closeTimeout: .seconds(5)))
        _ = ws.initiateClose(code: .goingAway, now: 10 * second)
        #expect(ws.nextDeadline == 15 * second)
        #expect(ws.tick(now: 15 * second - 1).isEmpty)
        #expect(ws.tick(now: 15 * second) == [.close(afterFlush: false)])
        #expect(ws.tick(now: 16 * second).isEmpty)
    }

    // MARK: Timers

    @Test func connection_pings_afterThePingIntervalOfSilence() {
        var ws = connection(WebSocketConfiguration(pingInterval: .seconds(30), idleTimeout: .seconds(90)))
        #expect(ws.nextDeadline == 30 * second)
        #expect(ws.tick(now: 29 * second).isEmpty)
        #expect(ws.tick(now: 30 * second) == [.send(WebSocketFrameEncoder.ping())])
        #expect(ws.tick(now: 31 * second).isEmpty)  // not again until another interval passes
        #expect(ws.tick(now: 60 * second) == [.send(WebSocketFrameEncoder.ping())])
    }

    @Test func receivedBytes_postponeThePing() {
        var ws = connection(WebSocketConfiguration(pingInterval: .seconds(30)))
        _ = ws.receive(ClientFrames.frame(0xA, []), now: 20 * second)  // a pong counts as activity
        #expect(ws.tick(now: 30 * second).isEmpty)
        #expect(ws.nextDeadline == 50 * second)
        #expect(ws.tick(now: 50 * second) == [.send(WebSocketFrameEncoder.ping())])
    }

    @Test func connection_closes_whenSilentForTheIdleTimeout() {
        var ws = connection(WebSocketConfiguration(pingInterval: .seconds(30), idleTimeout: .seconds(90)))
        _ = ws.tick(now: 30 * second)
        _ = ws.tick(now: 60 * second)
        #expect(ws.tick(now: 90 * second - 1).isEmpty)
        #expect(ws.tick(now: 90 * second) == [.send(WebSocketFrameEncoder.close(code: .goingAway, reason: "idle timeout")), .close(afterFlush: true)])
        #expect(ws.state == .closed)
        #expect(ws.nextDeadline == nil)
    }

    @Test func anyReceivedByte_countsAsActivity() {
        var ws = connection(WebSocketConfiguration(idleTimeout: .seconds(90)))
        _ = ws.receive(ClientFrames.text("x")[..<1], now: 80 * second)  // half a header
        #expect(ws.tick(now: 100 * second).allSatisfy { $0 != .close(afterFlush: true) })
        #expect(ws.tick(now: 170 * second).contains(.close(afterFlush: true)))
    }

    @Test func connection_toleratesTimeGoingBackwards() {
        var ws = WebSocketConnection(now: 100 * second)
        #expect(ws.tick(now: 50 * second).isEmpty)
    }
}
