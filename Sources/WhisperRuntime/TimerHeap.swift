/// Identifies a scheduled timer so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let value: UInt64
}

/// A binary min-heap of deadlines with lazy cancellation: cancelled ids are skipped when
/// they reach the top, so cancel is O(1) and the heap never needs a search.
struct TimerHeap {
    struct Entry {
        let deadline: UInt64
        let id: UInt64
        let callback: () -> Void
    }

    private var heap: [Entry] = []
    private var live: Set<UInt64> = []
    private var nextID: UInt64 = 1

    var isEmpty: Bool { live.isEmpty }

    mutating func schedule(deadline: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID &+= 1
        live.insert(id)
        heap.append(Entry(deadline: deadline, id: id, callback: callback))
        siftUp(heap.count - 1)
        return TimerID(value: id)
    }

    mutating func cancel(_ id: TimerID) {
        live.remove(id.value)
    }

    /// The earliest live deadline, discarding cancelled entries on the way.
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first {
            if live.contains(top.id) { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the callbacks of every live timer due at `now`.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if live.remove(top.id) != nil { due.append(top.callback) }
        }
        return due
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
