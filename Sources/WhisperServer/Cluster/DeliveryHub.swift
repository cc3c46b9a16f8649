import Synchronization
import WhisperProtocol
import WhisperRuntime
import WhisperServices

/// Hands a routed frame to the loop that holds the socket (`LiveRoute.loop`): the node-wide
/// part of live delivery, used by each loop's `LoopRouter` and by `DeliveryListener` for
/// frames published by other nodes. The loop list is set once, after start-up.
final class DeliveryHub: Sendable {
    private let contexts = Mutex<[LoopBound<LoopContext>]>([])

    func attach(_ contexts: [LoopBound<LoopContext>]) {
        self.contexts.withLock { $0 = contexts }
    }

    /// From any thread: runs the delivery on the socket's loop. A route naming a loop this
    /// node does not have (a stale route after a restart with fewer threads) is dropped: a
    /// message stays pending, an event is kept by loop 0.
    func forward(_ frame: [UInt8], to user: WhisperID, at route: LiveRoute, kind: DeliveryKind, receivedAtMicros: Int64) {
        let all = contexts.withLock { $0 }
        guard !all.isEmpty else { return }
        let target = all.indices.contains(route.loop) ? all[route.loop] : all[0]
        target.deliver { $0.deliverLocal(frame, to: user, kind: kind, receivedAtMicros: receivedAtMicros) }
    }
}
