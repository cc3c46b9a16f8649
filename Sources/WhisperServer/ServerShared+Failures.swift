import WhisperOps
import WhisperServices

extension ServerShared {
    /// The one way a use case's failure is reported, for frames and HTTP alike: counted in
    /// `whisper_errors_total{code}`; an internal error is logged with a fresh correlation id
    /// (never with secrets) that the returned client message repeats. Answers that message.
    func report(_ error: ServiceError, connId: UInt64?, whisperId: String?, frame: String?) -> String {
        metrics.error(error.code)
        guard error.code == .internalError else { return error.message }
        let reference = SodiumRandom().hex(6)
        if let frame {
            log.error("internal_error", connId: connId, whisperId: whisperId, code: error.code.rawValue,
                      ["frame": .string(frame), "correlationId": .string(reference), "reason": .string(error.logReason)])
        } else {
            log.error("internal_error", connId: connId, whisperId: whisperId, code: error.code.rawValue,
                      ["correlationId": .string(reference), "reason": .string(error.logReason)])
        }
        return error.message + " (ref \(reference))"
    }
}
