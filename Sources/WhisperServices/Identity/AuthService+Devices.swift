import WhisperProtocol

extension AuthService {
    /// `update_tokens` (docs/protocol.md "update_tokens → tokens_updated"), top to bottom:
    /// 1. TOKENS rate limit per identity and IP → else `RATE_LIMITED`;
    /// 2. the session's own device row gets the platform and the tokens given (absent ones
    ///    are kept) → a device row that is gone (the identity was deleted) is `NOT_REGISTERED`.
    /// Tokens are never logged.
    public func updateTokens(_ request: UpdateTokensPayload, session: SessionRecord, client: ClientRef,
                             completion: @escaping Completion<Void>) {
        rateLimiter.check(.tokens, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { [identities] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            let device = DeviceLogin(whisperId: session.whisperId, deviceId: session.deviceId, platform: request.platform,
                                     pushToken: request.pushToken, voipToken: request.voipToken)
            identities.updateTokens(device) { stored in
                switch stored {
                case .success(true): completion(.success(()))
                case .success(false): completion(.failure(.notRegistered))
                case .failure(let error): completion(.failure(.storage(error)))
                }
            }
        }
    }
}
