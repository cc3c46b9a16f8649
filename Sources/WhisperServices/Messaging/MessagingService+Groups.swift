import WhisperProtocol

/// Step 4 of a `group_send_message` (docs/protocol.md "Groups"): the membership check against this loop's
/// `GroupDirectory`, stamped with the epoch it was read under. Everything else — the checks
/// before, the accept step after — is `send_message`'s.
extension MessagingService {
    /// A membership that changed between the check and the accept is read again; a group
    /// changing this often under one message is a fault, not a race to keep losing.
    static let maxGroupAttempts = 3

    func sendToGroup(_ groupId: GroupID, _ message: SendMessagePayload, receivedAtMicros: Int64, client: ClientRef,
                     attempt: Int, _ completion: @escaping Completion<Void>) {
        guard let groups else { return completion(.failure(.internalFailure("groups are not configured"))) }
        groups.snapshot(of: groupId) { [self] result in
            switch result {
            case .failure(let error):
                return completion(.failure(.storage(error)))
            case .success(nil):
                return completion(.failure(.notFound("unknown group")))
            case .success(let snapshot?):
                guard snapshot.members.contains(message.from) else {
                    return completion(.failure(.forbidden("sender is not a member of the group")))
                }
                guard snapshot.members.contains(message.to) else {
                    return completion(.failure(.forbidden("recipient is not a member of the group")))
                }
                let stamp = GroupStamp(groupId: groupId, epoch: snapshot.epoch)
                checkRecipient(message.to, completion) { [self] in
                    accept(message, group: stamp, receivedAtMicros: receivedAtMicros, client: client) { [self] result in
                        switch result {
                        case .failure(let error):
                            completion(.failure(error))
                        case .success(true):
                            completion(.success(()))
                        case .success(false):
                            groups.forget(groupId)
                            guard attempt < Self.maxGroupAttempts else {
                                return completion(.failure(.internalFailure("group membership kept changing")))
                            }
                            sendToGroup(groupId, message, receivedAtMicros: receivedAtMicros, client: client,
                                        attempt: attempt + 1, completion)
                        }
                    }
                }
            }
        }
    }
}
