import CCurl
import Foundation
import Synchronization
import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices

/// One provider's sender (docs/architecture.md "Push"): a bounded job queue that loops fill
/// without blocking, and a thread of its own driving a libcurl multi handle, so requests to the
/// provider are multiplexed as HTTP/2 streams and one stalled request holds up no other push
/// (each has its own timeout). The thread owns the provider, the transfers and the retry
/// schedule (`PushSenderThread`); the loops only touch the queue and wake the thread.
final class PushSender: Sendable {
    /// A job and whom to tell how it ended (`PushDispatcher`), on the sender's thread.
    struct Entry: Sendable {
        let job: PushJob
        let finished: @Sendable (Bool) -> Void
    }

    private struct Queue {
        var jobs: [Entry] = []
        /// Jobs the thread holds: transfers in flight and attempts waiting for a retry or for
        /// the provider's credential.
        var held = 0
        var stopped = false
    }

    /// The multi handle; `curl_multi_wakeup` is the one call made on it off the sender's thread.
    private struct Multi: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

    let provider: PushJob.Provider
    private let capacity: Int
    private let queue = Mutex(Queue())
    private let multi: Multi

    /// Starts the thread; nil when libcurl cannot be set up.
    init?(provider: PushProvider, transport: PushTransport, limits: Limits, outcomes: PushOutcomes, log: Log) {
        guard PushTransport.globalInit, let handle = curl_multi_init() else { return nil }
        _ = whisper_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        self.provider = provider.name
        self.capacity = limits.pushQueueCapacity
        self.multi = Multi(handle: handle)
        let worker = PushSenderThread(provider: provider, multi: handle, transport: transport, limits: limits,
                                      outcomes: outcomes, log: log)
        let box = UncheckedSendable(worker)
        NamedThread.start("whisper-\(provider.name.rawValue)") { [self] in
            box.value.run(turn: { held, take in self.turn(holding: held, take: take) })
        }
    }

    /// Queues `job`; false (dropped) when the queue is full. Never blocks.
    func submit(_ job: PushJob, finished: @escaping @Sendable (Bool) -> Void = { _ in }) -> Bool {
        let queued = queue.withLock { queue in
            guard !queue.stopped, queue.jobs.count < capacity else { return false }
            queue.jobs.append(Entry(job: job, finished: finished))
            return true
        }
        if queued { _ = curl_multi_wakeup(multi.handle) }
        return queued
    }

    /// Jobs not finished yet: queued, or held by the thread.
    var outstanding: Int { queue.withLock { $0.jobs.count + $0.held } }

    /// Stops the thread at its next turn (after `drain`, or when a test server shuts down);
    /// whatever it still held is dropped.
    func stop() {
        queue.withLock { $0.stopped = true }
        _ = curl_multi_wakeup(multi.handle)
    }

    /// The thread's call at each turn: it reports how many jobs it holds and, when `take`, gets
    /// the queued ones (not while the provider waits for its credential: they stay here, in the
    /// bounded queue). Nil: stop.
    private func turn(holding held: Int, take: Bool) -> [Entry]? {
        queue.withLock { queue in
            guard !queue.stopped else { return nil }
            guard take else {
                queue.held = held
                return []
            }
            defer { queue.jobs.removeAll(keepingCapacity: true) }
            queue.held = held + queue.jobs.count
            return queue.jobs
        }
    }
}

/// Hands a value created on one thread to the thread that alone uses it from then on.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// What the senders report: `whisper_push_total{provider,result}`, one log line per push
/// (ids only, never a token), and dead tokens to remove.
struct PushOutcomes: Sendable {
    let metrics: WhisperMetrics
    /// Removes a dead token from its device row (any thread).
    let unregistered: @Sendable (PushJob) -> Void

    func count(_ provider: PushJob.Provider, _ result: String) {
        metrics.push.labels(provider.rawValue, result).increment()
    }
}
