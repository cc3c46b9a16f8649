import WhisperProtocol
import WhisperServices

/// One loop's `MessageRouter`: a frame for a socket on this loop is written at once, one
/// for another loop of this node goes through the `DeliveryHub`.
final class LoopRouter: MessageRouter {
    private unowned let context: LoopContext

    init(context: LoopContext) {
        self.context = context
    }

    func deliver(_ frame: consuming [UInt8], to user: WhisperID, at route: LiveRoute, kind: DeliveryKind, receivedAtMicros: Int64) {
        if route.loop == context.index {
            context.deliverLocal(consume frame, to: user, kind: kind, receivedAtMicros: receivedAtMicros)
        } else {
            context.shared.deliveryHub.forward(consume frame, to: user, at: route, kind: kind, receivedAtMicros: receivedAtMicros)
        }
    }
}
