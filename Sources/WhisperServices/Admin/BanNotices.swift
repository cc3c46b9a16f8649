import WhisperProtocol

/// Cross-node announcements about bans that are not session revocations. (A ban itself
/// travels as a `RevocationNotice` with reason `banned`, published by the session store as
/// it kills the sessions.)
public protocol BanNotices {
    /// Every node forgets what it cached about `whisperId`'s ban status, so that messages to
    /// it are accepted again at once after an unban.
    func announceLifted(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Void>)
}
