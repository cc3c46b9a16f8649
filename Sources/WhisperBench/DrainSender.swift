/// One phone filling the offline user's queue, closed loop. Loop thread only.
final class DrainSender {
    let phone: Phone
    /// Its global number: the `stream` of its message ids.
    let stream: UInt32
    let share: Int
    var outbox: [[UInt8]] = []
    var nextSequence = 0
    var inFlight = 0
    var answered = 0
    var accepted = 0

    init(phone: Phone, stream: UInt32, share: Int) {
        self.phone = phone
        self.stream = stream
        self.share = share
    }

    var isDone: Bool { answered >= share }
}
