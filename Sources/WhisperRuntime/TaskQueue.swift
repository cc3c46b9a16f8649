import Synchronization

/// A lock-free multi-producer single-consumer queue of tasks (Dmitry Vyukov's intrusive
/// MPSC design). Any thread may `push`; only the owning loop thread may `pop`. A push is
/// one atomic exchange and one store, so cross-loop hand-off on the message path takes no
/// lock.
final class TaskQueue: @unchecked Sendable {
    final class Node {
        var task: (@Sendable () -> Void)?
        let next = Atomic<UnsafeMutableRawPointer?>(nil)
        init(_ task: (@Sendable () -> Void)?) { self.task = task }
    }

    /// Producers swing `head` to their node; the consumer follows `next` links from `tail`.
    private let head: Atomic<UnsafeMutableRawPointer>
    private var tail: UnsafeMutableRawPointer  // consumer-only

    init() {
        let stub = Unmanaged.passRetained(Node(nil)).toOpaque()
        head = Atomic(stub)
        tail = stub
    }

    deinit {
        while pop() != nil {}
        Unmanaged<Node>.fromOpaque(tail).release()
    }

    func push(_ task: @escaping @Sendable () -> Void) {
        let node = Unmanaged.passRetained(Node(task)).toOpaque()
        let previous = head.exchange(node, ordering: .acquiringAndReleasing)
        Unmanaged<Node>.fromOpaque(previous).takeUnretainedValue().next.store(node, ordering: .releasing)
    }

    /// Returns the oldest task, or nil when empty. A producer that has exchanged `head` but
    /// not yet linked `next` makes the queue look empty for an instant; its push is then
    /// followed by a wake-up, so the task is run on the next drain.
    func pop() -> (@Sendable () -> Void)? {
        let tailNode = Unmanaged<Node>.fromOpaque(tail).takeUnretainedValue()
        guard let next = tailNode.next.load(ordering: .acquiring) else { return nil }
        let nextNode = Unmanaged<Node>.fromOpaque(next).takeUnretainedValue()
        let task = nextNode.task
        nextNode.task = nil  // nextNode becomes the new stub
        Unmanaged<Node>.fromOpaque(tail).release()
        tail = next
        return task
    }
}
