import Foundation
import Testing
import WhisperTesting

/// `update_tokens` over real sockets against real PostgreSQL and Redis.
@Suite(.serialized) struct UpdateTokensTests {
    /// The device rows of `whisperId`: device id → (platform, push token, VoIP token).
    static func devices(_ whisperId: String) async throws -> [String: (String?, String?, String?)] {
        let db = try Identity.database()
        defer { db.shutdown() }
        let rows = try await db.query(
            "SELECT device_id::text AS d, platform, push_token, voip_token FROM devices WHERE whisper_id = $1",
            [.text(whisperId)])
        var out: [String: (String?, String?, String?)] = [:]
        for row in rows {
            out[row.string("d") ?? ""] = (row.string("platform"), row.string("push_token"), row.string("voip_token"))
        }
        return out
    }

    @Test func tokens_areStoredOnTheSessionsDevice_andAbsentOnesAreKept() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let phone = try Phone.online(server)
        let reply = try phone.ws.privileged("update_tokens", token: phone.token,
                                            extra: ["pushToken": "apns-a1", "voipToken": "voip-b2", "platform": "ios"])
        #expect(reply.frameType == "tokens_updated", "\(reply)")
        #expect(reply.payload.isEmpty)
        var row = try await Self.devices(phone.id)[phone.identity.deviceId]
        #expect(row?.0 == "ios" && row?.1 == "apns-a1" && row?.2 == "voip-b2")
        // Only the push token changes; a null VoIP token keeps the stored one.
        #expect(try phone.ws.privileged("update_tokens", token: phone.token,
                                        extra: ["pushToken": "apns-c3", "voipToken": NSNull(), "platform": "ios"])
                    .frameType == "tokens_updated")
        row = try await Self.devices(phone.id)[phone.identity.deviceId]
        #expect(row?.1 == "apns-c3" && row?.2 == "voip-b2")
    }

    @Test func aLoginOnAnotherDevice_clearsTheOldDevicesTokens() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let old = try Phone.online(server)
        #expect(try old.ws.privileged("update_tokens", token: old.token,
                                      extra: ["pushToken": "apns-old", "voipToken": "voip-old", "platform": "ios"])
                    .frameType == "tokens_updated")
        let newDevice = old.identity.onNewDevice()
        _ = try TestWebSocket(port: server.publicPort).login(newDevice, whisperId: old.id, extra: ["pushToken": "fcm-new"])
        let rows = try await Self.devices(old.id)
        #expect(rows[old.identity.deviceId]?.1 == nil && rows[old.identity.deviceId]?.2 == nil, "\(rows)")
        #expect(rows[newDevice.deviceId]?.1 == "fcm-new")
    }

    @Test func badPayloads_getInvalidPayload_floodsAreLimited_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_TOKENS": "2/60"])
        defer { server.stop() }
        let phone = try Phone.online(server)
        for extra: [String: Any] in [["platform": "windows"], ["pushToken": "a b", "platform": "ios"], ["pushToken": "x"],
                                     ["pushToken": String(repeating: "a", count: 4_097), "platform": "android"],
                                     ["platform": "ios", "badge": 3]] {
            #expect(try phone.ws.privileged("update_tokens", token: phone.token, extra: extra).errorCode
                        == "INVALID_PAYLOAD", "\(extra)")
        }
        #expect(try phone.ws.privileged("update_tokens", token: nil, extra: ["platform": "ios"]).errorCode == "NOT_REGISTERED")
        for _ in 0..<2 {
            #expect(try phone.ws.privileged("update_tokens", token: phone.token, extra: ["platform": "android"]).frameType
                        == "tokens_updated")
        }
        let limited = try phone.ws.privileged("update_tokens", token: phone.token, extra: ["platform": "android"])
        #expect(limited.errorCode == "RATE_LIMITED")
        #expect(try phone.ws.request(["type": "ping", "payload": [:]]).frameType == "pong")
    }
}
