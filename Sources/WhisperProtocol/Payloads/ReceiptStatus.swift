/// `delivery_receipt.status` (docs/protocol.md "Messaging (1:1)"): `delivered` removes the message from the recipient's
/// pending queue; `read` is only forwarded to the sender.
public enum ReceiptStatus: String, Sendable, CaseIterable {
    case delivered
    case read

    public static let key = "status"

    /// Reads the required `key` member: exactly `delivered` or `read`.
    public static func require(_ key: String = ReceiptStatus.key, in payload: some JSONFieldSource) throws(PayloadError) -> ReceiptStatus {
        guard let status = ReceiptStatus(rawValue: try payload.requireString(key)) else { throw .invalidValue(field: key) }
        return status
    }
}
