import WhisperServices
import WhisperStorage

/// Maps Redis outcomes onto the services' `StoreError` in one place.
enum RedisReplies {
    /// A successful reply that is not an error reply; otherwise the matching `StoreError`.
    static func value(_ result: Result<RedisValue, RedisError>) -> Result<RedisValue, StoreError> {
        switch result {
        case .failure(let error):
            return .failure(.unavailable(error.description))
        case .success(.error(let message)):
            return .failure(.unexpectedReply(message))
        case .success(let value):
            return .success(value)
        }
    }

    static func unexpected(_ value: RedisValue) -> StoreError {
        .unexpectedReply("\(value)".prefix(200).description)
    }
}
