import WhisperServices
import WhisperStorage

/// Maps Redis outcomes onto the services' `StoreError` in one place.
package enum RedisReplies {
    /// A successful reply that is not an error reply; otherwise the matching `StoreError`.
    package static func value(_ result: Result<RedisValue, RedisError>) -> Result<RedisValue, StoreError> {
        switch result {
        case .failure(let error):
            return .failure(.unavailable(error.description))
        case .success(.error(let message)):
            return .failure(.unexpectedReply(message))
        case .success(let value):
            return .success(value)
        }
    }

    /// A script's `{status, …}` array reply, decoded by `decode` from the status and all
    /// the items; a reply of another shape, or one `decode` refuses (nil), is unexpected.
    package static func tagged<T>(_ result: Result<RedisValue, RedisError>,
                                  _ decode: (_ status: Int64, _ items: [RedisValue]) -> T?) -> Result<T, StoreError> {
        value(result).flatMap { value in
            guard let items = value.array, let status = items.first?.integer, let decoded = decode(status, items) else {
                return .failure(unexpected(value))
            }
            return .success(decoded)
        }
    }

    /// `tagged` for a reply read in place (`RedisClient.evalScript(_:retryOnce:reading:)`): the
    /// message path's scripts, which build no `RedisValue` tree unless the reply is unexpected.
    package static func tagged<T>(_ result: Result<RedisReply, RedisError>,
                                  _ decode: (_ status: Int64, _ reply: RedisReply) -> T?) -> Result<T, StoreError> {
        switch result {
        case .failure(let error):
            return .failure(.unavailable(error.description))
        case .success(let reply):
            guard !reply.isError, let status = reply[0]?.integer, let decoded = decode(status, reply) else {
                return value(.success(reply.value)).flatMap { .failure(unexpected($0)) }
            }
            return .success(decoded)
        }
    }

    /// A reply read in place that is not an error reply (a plain command's), decoded by
    /// `decode`; one `decode` refuses (nil) is unexpected.
    package static func plain<T>(_ result: Result<RedisReply, RedisError>, _ decode: (RedisReply) -> T?) -> Result<T, StoreError> {
        switch result {
        case .failure(let error):
            return .failure(.unavailable(error.description))
        case .success(let reply):
            guard !reply.isError, let decoded = decode(reply) else {
                return value(.success(reply.value)).flatMap { .failure(unexpected($0)) }
            }
            return .success(decoded)
        }
    }

    package static func unexpected(_ value: RedisValue) -> StoreError {
        .unexpectedReply("\(value)".prefix(200).description)
    }
}
