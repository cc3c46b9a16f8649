import WhisperProtocol

/// Group mode: each group's sender creates its group with the pairs' recipients as members,
/// then every message is one `group_send_message` envelope per member — a pair per member,
/// all sharing the sender, which finds the pair of each answer by its message's stream.
extension RelayShard {
    /// Creates this shard's groups; `completion` gets nil when all were created, else why not.
    func createGroups(completion: @escaping (String?) -> Void) {
        guard !groups.isEmpty else { return completion(nil) }
        groupCreation = (remaining: groups.count, completion: completion)
        for (index, group) in groups.enumerated() {
            let members = pairs[group.pairs].compactMap(\.recipient.whisperId)
            guard let token = group.sender.token, members.count == group.pairs.count,
                  group.sender.send(ClientFrames.groupCreate(requestId: "g\(index)", token: token,
                                                             title: "bench \(index)", memberIds: members))
            else { return finishGroupCreation("group \(index) not logged in") }
        }
    }

    func groupSenderReceived(_ frame: ServerFrame, group: Int) {
        switch frame.type {
        case "group_created":
            guard let groupId = frame.string("groupId"), group < groups.count else {
                return finishGroupCreation("group_created without a groupId")
            }
            for index in groups[group].pairs { pairs[index].groupId = groupId }
            guard var creation = groupCreation else { return }
            creation.remaining -= 1
            groupCreation = creation
            if creation.remaining == 0 { finishGroupCreation(nil) }
        case "error" where frame.requestId?.hasPrefix("g") == true:
            finishGroupCreation("group_create: \(frame.errorCode ?? "UNKNOWN")")
        default:
            // An answer about one envelope: its message id, or for an error its request id,
            // names the stream.
            guard let stream = frame.messageID?.stream ?? frame.requestId.flatMap(Self.sendRequest)?.stream,
                  let index = pairIndexByStream[stream] else {
                if frame.type != "presence" { errors.add("foreign_message_id") }
                return
            }
            senderReceived(frame, pair: pairs[index])
        }
    }

    private func finishGroupCreation(_ failure: String?) {
        let completion = groupCreation?.completion
        groupCreation = nil
        completion?(failure)
    }
}
