/// Push tokens (`pushToken`, `voipToken`): opaque to the server, 1 to `Limits.maxPushTokenBytes`
/// bytes of printable ASCII without spaces (APNs tokens are hex, FCM tokens base64url with
/// `:`), so a token can never smuggle a control character into a log or a provider request.
public enum PushToken {
    /// Absent or `null` → `nil`.
    public static func optional(_ key: String, in payload: JSONObject, limits: Limits) throws(PayloadError) -> String? {
        guard let token = try payload.optionalString(key) else { return nil }
        let count = token.utf8.count
        guard count <= limits.maxPushTokenBytes else { throw .tooLarge(field: key, maxBytes: limits.maxPushTokenBytes) }
        guard count > 0, token.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { throw .invalidValue(field: key) }
        return token
    }
}
