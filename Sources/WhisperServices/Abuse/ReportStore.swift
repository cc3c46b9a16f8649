import WhisperProtocol

/// Abuse reports (PostgreSQL `reports`). Completions run on the caller's loop.
public protocol ReportStore {
    /// Inserts an open report; answers its id, or `nil` when the reported identity does not exist.
    func insert(_ report: ReportPayload, reporter: WhisperID, verified: Bool, completion: @escaping StoreCompletion<Int64?>)
}
