import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Routing a frame to a user's socket outside a script — how the one-slot steps route
/// (issue #27): a step answers the route it read (`node:loop:connection`), and the frame is
/// written here when the socket is on this node, else published on its node's delivery
/// channel (`DeliveryNotice`'s form, `RedisClient.publish`). A publish nobody received
/// (the node died, or its subscriber is reconnecting) counts as offline, as it does inside
/// a script: an event is then kept in the user's event queue, a signal dropped.
package struct RedisRouter {
    let redis: RedisClient
    let keys: RedisKeys
    /// This node's id.
    let node: String
    let eventTTLMillis: Int64
    let maxEventsPerUser: Int

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.eventTTLMillis = limits.pendingTTLSeconds * 1000
        self.maxEventsPerUser = limits.maxKeptEventsPerUser
    }

    /// Where a step's answer (a route text or 'offline') says the socket is: nil when it is
    /// on another node (then `LiveRoute(text:)` names it), `.offline`, or `.local`.
    func local(_ answer: String) -> (routing: Routing?, remote: LiveRoute?)? {
        if answer == "offline" { return (.offline, nil) }
        guard let route = LiveRoute(text: answer) else { return nil }
        return route.node == node ? (.local(route), nil) : (nil, route)
    }

    /// Publishes a frame for `user`'s socket at `route` on its node's channel; `completion(false)`
    /// when nobody received it. `kind` is `DeliveryKind`'s letter (m, e, s).
    func publish(_ frame: [UInt8], to user: WhisperID, at route: LiveRoute, kind: String, receivedAtMicros: Int64 = 0,
                 completion: @escaping (Bool) -> Void) {
        let notice = Array((route.text + " " + user.string + " " + kind + " " + String(receivedAtMicros) + "\n").utf8) + frame
        redis.publish(keys.deliveryChannel(route.node), notice) { result in
            guard case .success(let receivers) = result else { return completion(false) }
            completion(receivers > 0)
        }
    }

    /// An event for `user` (`message_delivered`, a group change): written, published, or kept
    /// until its next login. The route is read with a plain `GET` (a user with a socket, the
    /// common case, costs Redis no script); only a user without one goes through the notice
    /// step, which reads the route again and keeps the frame in the same atomic step — so a
    /// login between the two reads still finds the frame in its event queue, or is published to.
    func deliverEvent(_ frame: [UInt8], to user: WhisperID, completion: @escaping StoreCompletion<Routing>) {
        var command = RedisCommand(capacity: 96)
        command.append("GET")
        keys.route(user, into: &command)
        redis.send(command, reading: { [self] result in
            // No route reads as nil: the user has no socket.
            switch RedisReplies.plain(result, { reply in Optional(reply.string) }) {
            case .failure(let error): completion(.failure(error))
            case .success(nil): notice(frame, to: user, completion: completion)
            case .success(let text?):
                guard let where_ = local(text) else { return completion(.failure(.unexpectedReply(String(text.prefix(200))))) }
                route(frame, to: user, where_, completion: completion)
            }
        })
    }

    /// The notice step: the route read again, the frame kept when there is none.
    private func notice(_ frame: [UInt8], to user: WhisperID, completion: @escaping StoreCompletion<Routing>) {
        let call = RedisScriptCall(MessageStepScripts.notice, capacity: 160 + frame.count, keys: { command in
            command.write(MessageStepScripts.NoticeKey.self) { name, command in
                switch name {
                case .route: keys.route(user, into: &command)
                case .events: keys.events(user, into: &command)
                }
            }
        }, arguments: { command in
            command.write(MessageStepScripts.NoticeArgument.self) { name, command in
                switch name {
                case .frame: command.append(frame)
                case .eventTTL: command.append(eventTTLMillis)
                case .maxEvents: command.append(maxEventsPerUser)
                }
            }
        })
        redis.evalScript(call, retryOnce: true) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): completion(.failure(error))
            case .success(let value):
                guard let where_ = value.string.flatMap(local) else { return completion(.failure(RedisReplies.unexpected(value))) }
                route(frame, to: user, where_, completion: completion)
            }
        }
    }

    /// A route read: this node's socket, or the publish to another node (kept when nobody
    /// received it).
    private func route(_ frame: [UInt8], to user: WhisperID, _ where_: (routing: Routing?, remote: LiveRoute?),
                       completion: @escaping StoreCompletion<Routing>) {
        guard let remote = where_.remote else { return completion(.success(where_.routing ?? .offline)) }
        publish(frame, to: user, at: remote, kind: "e") { [self] received in
            if received { return completion(.success(.remote)) }
            keep(frame, for: user) { kept in completion(kept.map { .offline }) }
        }
    }

    /// Keeps an event frame in `user`'s event queue (sent after its next login).
    func keep(_ frame: [UInt8], for user: WhisperID, completion: @escaping StoreCompletion<Void>) {
        let call = RedisScriptCall(MessageScripts.keepEvent, keys: { (_: MessageScripts.KeepEventKey) in keys.events(user) },
                                   arguments: { (name: MessageScripts.KeepEventArgument) in
            switch name {
            case .frame: frame
            case .eventTTL: RedisMessageStore.text(eventTTLMillis)
            case .maxEvents: RedisMessageStore.text(Int64(maxEventsPerUser))
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).map { _ in () })
        }
    }
}
