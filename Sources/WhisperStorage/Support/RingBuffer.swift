/// A FIFO with O(1) amortised append and removal at the front. In-flight Redis commands
/// live here: replies arrive in send order, so the head is always the oldest command.
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head].take()  // moved out: no retain and release
        head += 1
        // Compact once the dead prefix dominates, so memory stays proportional to `count`.
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
