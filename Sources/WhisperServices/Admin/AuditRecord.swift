/// One row of `audit_events` (docs/operations.md "Audit events").
public struct AuditRecord: Sendable, Equatable {
    public let id: Int64
    public let actor: String
    public let action: String
    public let target: String?
    public let clientAddress: String?
    /// The stored JSON object, as PostgreSQL prints it.
    public let detailsJSON: String
    public let createdAtMillis: Int64

    public init(id: Int64, actor: String, action: String, target: String?, clientAddress: String?, detailsJSON: String,
                createdAtMillis: Int64) {
        self.id = id
        self.actor = actor
        self.action = action
        self.target = target
        self.clientAddress = clientAddress
        self.detailsJSON = detailsJSON
        self.createdAtMillis = createdAtMillis
    }
}
