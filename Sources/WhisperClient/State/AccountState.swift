import Foundation
import WhisperProtocol

/// Who this install is (`account.json`): its device id (a UUID generated once), the Whisper ID
/// the server gave it, and the current session. The session token is a bearer secret, so the
/// file is 0600 like every state file; it dies within 7 days or at the next login anyway.
public struct AccountState: Equatable, Sendable {
    static let fileName = "account.json"
    public var deviceId: String
    public var whisperId: WhisperID?
    public var sessionToken: String?
    public var sessionExpiresAt: Int64?

    public init(deviceId: String = UUID().uuidString.lowercased()) {
        self.deviceId = deviceId
    }

    public static func load(from home: ClientHome) throws(ClientError) -> AccountState {
        guard let json = try home.readJSON(fileName) else { return AccountState() }
        guard let deviceId = json["deviceId"]?.stringValue else { throw .storage("\(fileName) is damaged") }
        var state = AccountState(deviceId: deviceId)
        state.whisperId = json["whisperId"]?.stringValue.flatMap(WhisperID.validate)
        state.sessionToken = json["sessionToken"]?.stringValue
        state.sessionExpiresAt = json["sessionExpiresAt"]?.int64Value
        return state
    }

    func save(in home: ClientHome) throws(ClientError) {
        var w = JSONWriter()
        w.beginObject()
        w.member("deviceId", deviceId)
        if let whisperId { w.member("whisperId", whisperId.string) }
        if let sessionToken { w.member("sessionToken", sessionToken) }
        if let sessionExpiresAt { w.member("sessionExpiresAt", sessionExpiresAt) }
        w.endObject()
        try home.write(Self.fileName, w.bytes)
    }
}
