import Foundation
import Testing
import WhisperTesting

/// A call signal as a phone builds it (docs/protocol.md "Calls"): random nonce and "ciphertext",
/// signed like a message with the frame type as `messageType` and `callId` as `messageId`.
struct TestCallSignal {
    var type: String
    var callId: String
    var from: String
    var to: String
    var isVideo: Bool?
    var timestamp: Int64 = TestMessage.nowMillis()
    var nonce = Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    var ciphertext = Data((0..<64).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()

    var signedBytes: [UInt8] {
        TestMessage.signedBytes(type: type, messageId: callId, from: from, to: to, timestamp: timestamp, nonce: nonce,
                                ciphertext: ciphertext)
    }

    /// The payload members (without session fields), in the order the callee receives them.
    func payload(signedBy key: TestSigningKey) -> [String: Any] {
        var payload: [String: Any] = ["callId": callId, "from": from, "to": to, "timestamp": timestamp, "nonce": nonce,
                                      "ciphertext": ciphertext,
                                      "sig": Data(key.sign(TestSHA256.hash(signedBytes))).base64EncodedString()]
        if let isVideo { payload["isVideo"] = isVideo }
        return payload
    }
}

extension Phone {
    /// Sends a signed call signal without waiting (success has no reply); returns it.
    @discardableResult
    func signal(_ type: String, callId: String, to peer: String, isVideo: Bool? = nil, requestId: String = "c",
                edit: (inout TestCallSignal) -> Void = { _ in }, extra: [String: Any] = [:]) throws -> TestCallSignal {
        var signal = TestCallSignal(type: type, callId: callId, from: id, to: peer,
                                    isVideo: type == "call_initiate" ? (isVideo ?? false) : isVideo)
        edit(&signal)
        var payload = signal.payload(signedBy: identity.signing)
        payload.merge(extra) { $1 }
        let frame = TestWebSocket.privilegedFrame(type, token: token, requestId: requestId, extra: payload)
        try ws.sendText(String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self))
        return signal
    }

    /// Sends a signal that must be refused; returns the error code (after checking the requestId echo).
    func refusedSignal(_ type: String, callId: String, to peer: String, edit: (inout TestCallSignal) -> Void = { _ in },
                       extra: [String: Any] = [:]) throws -> String? {
        try signal(type, callId: callId, to: peer, requestId: "refused", edit: edit, extra: extra)
        let reply = try ws.receiveJSON()
        #expect(reply["requestId"] as? String == "refused", "\(reply)")
        return reply.errorCode
    }

    /// `call_received {callId}` (unsigned): answers the reply (`call_confirmed` or an error).
    func callReceived(_ callId: String, requestId: String = "r") throws -> [String: Any] {
        try ws.request(TestWebSocket.privilegedFrame("call_received", token: token, requestId: requestId, extra: ["callId": callId]))
    }

    /// Confirms the offer of `callId` reached this phone, expecting `call_confirmed {callId}`
    /// with the frame's requestId (to the first confirmation and to a repeat alike).
    func confirmCall(_ callId: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try callReceived(callId)
        #expect(reply.frameType == "call_confirmed", "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["requestId"] as? String == "r", sourceLocation: sourceLocation)
        #expect(reply.payload as NSDictionary == ["callId": callId] as NSDictionary, sourceLocation: sourceLocation)
    }

    /// The next frame, which must be `type` about `callId`.
    @discardableResult
    func expectCall(_ type: String, callId: String) throws -> [String: Any] {
        let frame = try ws.receiveJSON()
        #expect(frame.frameType == type, "expected \(type), got \(frame)")
        #expect(frame.payload["callId"] as? String == callId, "\(frame)")
        #expect(frame["requestId"] == nil)
        return frame
    }
}

enum Calls {
    static func newCallId() -> String { UUID().uuidString.lowercased() }

    /// `caller` offers a new call to the online `callee`: the callee gets the offer and
    /// confirms it (`call_received`), the caller hears `call_ringing`. Answers the callId.
    @discardableResult
    static func ring(_ caller: Phone, _ callee: Phone, callId: String = newCallId()) throws -> String {
        try caller.signal("call_initiate", callId: callId, to: callee.id)
        try callee.expectCall("call_initiate", callId: callId)
        try callee.confirmCall(callId)
        try caller.expectCall("call_ringing", callId: callId)
        return callId
    }

    /// A caller online and a registered callee whose socket the server has seen close.
    static func offlineCallee(_ server: TestServer) async throws -> (caller: Phone, callee: Phone) {
        let caller = try Phone.online(server), callee = try Phone.online(server)
        callee.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        return (caller, callee)
    }

    /// `whisper_call_setup_total{result}` on `server`.
    static func setups(_ server: TestServer, _ result: String) throws -> Double {
        try Identity.metricValue(server, "whisper_call_setup_total{result=\"\(result)\"}") ?? 0
    }

    /// Waits for the setup counter to reach `value` (the counter moves before the frames leave).
    static func expectSetups(_ server: TestServer, _ result: String, _ value: Double) async {
        let reached = await eventually(within: 5) { (try? setups(server, result)) == value }
        #expect(reached, "whisper_call_setup_total{result=\"\(result)\"} is \((try? setups(server, result)) ?? -1), expected \(value)")
    }
}
