import WhisperProtocol

/// One row of `reports` as the admin API lists it (docs/protocol.md "Admin API").
public struct ReportRecord: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case open, reviewed
    }

    public let id: Int64
    public let reporterId: String
    public let whisperId: String
    public let reason: String
    public let details: String?
    public let messageId: String?
    public let verified: Bool
    public let status: Status
    public let createdAtMillis: Int64
    public let reviewedAtMillis: Int64?
    public let action: AdminReviewPayload.Action?
    public let note: String?

    public init(id: Int64, reporterId: String, whisperId: String, reason: String, details: String?, messageId: String?,
                verified: Bool, status: Status, createdAtMillis: Int64, reviewedAtMillis: Int64?,
                action: AdminReviewPayload.Action?, note: String?) {
        self.id = id
        self.reporterId = reporterId
        self.whisperId = whisperId
        self.reason = reason
        self.details = details
        self.messageId = messageId
        self.verified = verified
        self.status = status
        self.createdAtMillis = createdAtMillis
        self.reviewedAtMillis = reviewedAtMillis
        self.action = action
        self.note = note
    }
}
