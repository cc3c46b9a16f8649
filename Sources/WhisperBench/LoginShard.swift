/// The login scenario's phones on one loop: each registration is a fresh phone on a fresh
/// connection; each recovery login is the same keys on a new device (new deviceId, the
/// identity's whisperId). Loop thread only.
final class LoginShard: PhoneOwner {
    let context: ShardContext
    private var pending: [Phone] = []
    private var registered: [Phone] = []
    private var recovered: [Phone] = []
    private var ended = ErrorTally()

    init(context: ShardContext) {
        self.context = context
    }

    /// Makes `count` new phones (their key pairs) before the clock starts: a phone generates
    /// its keys once, not as part of a login.
    func prepareRegistrations(count: Int) {
        pending = (0..<count).map { Phone(index: $0, identity: context.newIdentity()) }
        for phone in pending { phone.owner = self }
    }

    func register(concurrency: Int, completion: @escaping (LoginTally) -> Void) {
        let phones = pending
        pending = []
        context.logIn(phones, concurrency: concurrency, closeAfterLogin: true) { [self] tally in
            registered = phones.filter { $0.token != nil }
            completion(tally)
        }
    }

    /// Every identity that registered, on a new device (a new deviceId), made before
    /// the clock starts like the registrations.
    func prepareRecoveries() {
        recovered = registered.map { old in
            Phone(index: old.index, identity: old.identity.onNewDevice(random: &context.random), whisperId: old.whisperId)
        }
        for phone in recovered { phone.owner = self }
    }

    /// Recovery logins of the prepared phones.
    func recover(concurrency: Int, completion: @escaping (LoginTally) -> Void) {
        context.logIn(recovered, concurrency: concurrency, closeAfterLogin: true, completion: completion)
    }

    /// Connections that ended other than by our own close (a server close, a reset).
    var unexpectedEnds: ErrorTally { ended }

    func closeAll(completion: @escaping () -> Void) {
        context.closeAll(registered + recovered, completion: completion)
    }

    func phone(_ phone: Phone, didReceive frame: ServerFrame) {}

    func phone(_ phone: Phone, didEnd end: ClientEnd) {
        // A recovery login revokes the old session (4001), but the old socket is already
        // closed by then; anything but our own close is worth reporting.
        if end != .closedByClient { ended.add(end.label) }
    }
}
