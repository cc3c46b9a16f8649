import WhisperOps
import WhisperProtocol

/// The wake-up of today: no push provider is wired yet, so a request is only logged
/// (`voip_wakeup_requested`, ids only) and the callee gets the offer if it comes online by
/// itself within the ring timeout. The push work replaces this type; nothing else changes.
public final class LoggedVoIPWakeUps: VoIPWakeUps {
    private let log: Log

    public init(log: Log) {
        self.log = log
    }

    public func requestWakeUp(callee: WhisperID, caller: WhisperID, callId: CanonicalUUID) {
        log.info("voip_wakeup_requested", whisperId: callee.string,
                 ["callId": .string(callId.string), "caller": .string(caller.string), "sent": .bool(false)])
    }
}
