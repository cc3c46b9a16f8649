import WhisperProtocol
import WhisperRuntime
import WhisperServices

/// The channels every node subscribes to, and what each notice does on this node.
extension NodeSubscriptions {
    static func channels(shared: ServerShared, contexts: [LoopBound<LoopContext>]) -> [Channel] {
        let hub = shared.deliveryHub
        return [
            // Frames routed to this node's sockets by the message scripts of any node.
            Channel(name: shared.redisKeys.deliveryChannel(shared.nodeId), malformedEvent: "delivery_notice_malformed") {
                guard let notice = DeliveryNotice.decode($0) else { return false }
                hub.forward(notice.frame, to: notice.user, at: notice.route, kind: notice.kind,
                            receivedAtMicros: notice.receivedAtMicros)
                return true
            },
            // This node's readiness canary (`Readiness`): proves the subscription still delivers.
            Channel(name: shared.redisKeys.readiness(shared.nodeId), malformedEvent: "readiness_canary_malformed") {
                guard let number = UInt64(String(decoding: $0, as: UTF8.self)) else { return false }
                shared.readinessProbe.canaryArrived(number)
                return true
            },
            // Sessions killed by a login or a ban on any node: every loop closes its sockets.
            Channel(name: shared.redisKeys.revocationChannel, malformedEvent: "revocation_notice_malformed") {
                guard let notice = RevocationNotice.decode($0) else { return false }
                for context in contexts { context.deliver { $0.applyRevocation(notice) } }
                return true
            },
            // A group changed on any node (docs/protocol.md "Groups"): every loop drops it from its
            // membership cache. Published before the change's events and replies.
            Channel(name: shared.redisKeys.groupChangeChannel, malformedEvent: "group_change_notice_malformed") {
                guard let groupId = GroupID(String(decoding: $0, as: UTF8.self)) else { return false }
                for context in contexts { context.deliver { $0.groupMembers.forget(groupId) } }
                return true
            },
            // A ban lifted on any node: sends to the identity are accepted again at once.
            Channel(name: shared.redisKeys.banLiftedChannel, malformedEvent: "ban_lifted_notice_malformed") { bytes in
                guard let whisperId = WhisperID.validate(String(decoding: bytes, as: UTF8.self)) else { return false }
                for context in contexts { context.deliver { $0.recipients.forget(whisperId) } }
                return true
            },
        ]
    }

    /// After a (re)connect: revocations and group changes may have been missed, so every loop
    /// re-checks the sessions its sockets hold and drops its whole group membership cache.
    static func revalidateSessions(contexts: [LoopBound<LoopContext>]) -> @Sendable () -> Void {
        { for context in contexts { context.deliver { $0.revalidateSessions(); $0.groupMembers.forgetAll() } } }
    }
}
