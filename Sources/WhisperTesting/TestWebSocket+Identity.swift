import Foundation

/// Frame builders and flows for identity tests: `register_begin` → `register_proof`, and
/// privileged frames carrying a session token.
public struct TestLogin {
    public let whisperId: String
    public let sessionToken: String
    public let ack: [String: Any]
}

extension TestWebSocket {
    public static func beginFrame(_ identity: TestIdentity, whisperId: String? = nil, requestId: String = "begin")
        -> [String: Any]
    {
        var payload: [String: Any] = ["protocolVersion": 1, "cryptoVersion": 1, "deviceId": identity.deviceId,
                                      "platform": identity.platform]
        if let whisperId { payload["whisperId"] = whisperId }
        return ["type": "register_begin", "requestId": requestId, "payload": payload]
    }

    /// A `register_proof` for `challenge` (a `register_challenge` frame), signed by `identity`.
    public static func proofFrame(_ identity: TestIdentity, challenge: [String: Any], whisperId: String? = nil,
                                  requestId: String = "proof", extra: [String: Any] = [:]) throws -> [String: Any] {
        let payload = challenge["payload"] as? [String: Any] ?? [:]
        guard let challengeId = payload["challengeId"] as? String,
              let challengeText = payload["challenge"] as? String, let bytes = Data(base64Encoded: challengeText)
        else { throw TestSocket.Failure.io("not a register_challenge: \(challenge)") }
        var proof: [String: Any] = [
            "protocolVersion": 1, "cryptoVersion": 1, "challengeId": challengeId, "deviceId": identity.deviceId,
            "platform": identity.platform, "encPublicKey": identity.encPublicKeyBase64,
            "signPublicKey": identity.signPublicKeyBase64,
            "signature": Data(identity.signing.sign(Array(bytes))).base64EncodedString(),
        ]
        if let whisperId { proof["whisperId"] = whisperId }
        proof.merge(extra) { $1 }
        return ["type": "register_proof", "requestId": requestId, "payload": proof]
    }

    /// `register_begin`; returns the reply (a `register_challenge` or an `error`).
    public func registerBegin(_ identity: TestIdentity, whisperId: String? = nil) throws -> [String: Any] {
        try request(Self.beginFrame(identity, whisperId: whisperId))
    }

    /// Begin + proof; returns the proof's reply (a `register_ack` or an `error`).
    public func registerReply(_ identity: TestIdentity, whisperId: String? = nil,
                              extra: [String: Any] = [:]) throws -> [String: Any] {
        let challenge = try registerBegin(identity, whisperId: whisperId)
        guard challenge["type"] as? String == "register_challenge" else { return challenge }
        return try request(Self.proofFrame(identity, challenge: challenge, whisperId: whisperId, extra: extra))
    }

    /// A successful login, or a thrown failure naming the error frame.
    public func login(_ identity: TestIdentity, whisperId: String? = nil, extra: [String: Any] = [:]) throws -> TestLogin {
        let ack = try registerReply(identity, whisperId: whisperId, extra: extra)
        let payload = ack["payload"] as? [String: Any] ?? [:]
        guard ack["type"] as? String == "register_ack", let id = payload["whisperId"] as? String,
              let token = payload["sessionToken"] as? String
        else { throw TestSocket.Failure.io("login failed: \(ack)") }
        return TestLogin(whisperId: id, sessionToken: token, ack: ack)
    }

    /// A privileged frame with versions 1/1 and `sessionToken` (omitted when nil).
    public static func privilegedFrame(_ type: String, token: String?, requestId: String = "p",
                                       extra: [String: Any] = [:]) -> [String: Any] {
        var payload: [String: Any] = ["protocolVersion": 1, "cryptoVersion": 1]
        if let token { payload["sessionToken"] = token }
        payload.merge(extra) { $1 }
        return ["type": type, "requestId": requestId, "payload": payload]
    }

    public func privileged(_ type: String, token: String?, extra: [String: Any] = [:]) throws -> [String: Any] {
        try request(Self.privilegedFrame(type, token: token, extra: extra))
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `payload.code` of an `error` frame (nil for other frames).
    public var errorCode: String? {
        guard self["type"] as? String == "error" else { return nil }
        return (self["payload"] as? [String: Any])?["code"] as? String
    }

    public var payload: [String: Any] { self["payload"] as? [String: Any] ?? [:] }
    public var frameType: String? { self["type"] as? String }
}
