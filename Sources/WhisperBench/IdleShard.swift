/// The idle scenario's phones on one loop: log in, then only answer the server's Pings
/// (the client does that by itself) and note any connection that ends. Loop thread only.
final class IdleShard: PhoneOwner {
    struct Status: Sendable {
        var open = 0
        var ended = ErrorTally()
        var pingsAnswered = 0
        var unexpectedFrames = 0
    }

    let context: ShardContext
    private var phones: [Phone] = []
    private var ended = ErrorTally()
    private var unexpectedFrames = 0

    init(context: ShardContext) {
        self.context = context
    }

    func connect(count: Int, concurrency: Int, completion: @escaping (LoginTally) -> Void) {
        phones = (0..<count).map { Phone(index: $0, identity: context.newIdentity()) }
        for phone in phones { phone.owner = self }
        context.logIn(phones, concurrency: concurrency, completion: completion)
    }

    var status: Status {
        Status(open: phones.filter(\.isOpen).count, ended: ended,
               pingsAnswered: phones.reduce(0) { $0 + $1.pingsAnswered }, unexpectedFrames: unexpectedFrames)
    }

    func closeAll(completion: @escaping () -> Void) {
        context.closeAll(phones, completion: completion)
    }

    func phone(_ phone: Phone, didReceive frame: ServerFrame) {
        unexpectedFrames += 1
    }

    func phone(_ phone: Phone, didEnd end: ClientEnd) {
        if end != .closedByClient { ended.add(end.label) }
    }
}
