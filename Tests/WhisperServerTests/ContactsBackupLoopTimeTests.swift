import Foundation
import Testing
import WhisperHTTP
import WhisperOps
import WhisperProtocol
import WhisperRuntime
@testable import WhisperServer
import WhisperServices
import WhisperStorage
import WhisperTesting
@testable import WhisperStores

/// How much loop-thread CPU the longest event-loop iteration takes while a maximum-size
/// contacts backup (5 MB of ciphertext, 6.7 MB of base64) is read and its response
/// serialized: the way `GET /backup/contacts` reads it now (`PostgresContactsBackupStore.get`,
/// on a worker) against the way it did (the loop's own PostgreSQL pipeline, the row converted
/// and the body rendered on the loop). A measurement for docs/architecture.md "Large results",
/// not a CI check (timings on a shared machine are noise): run with `WHISPER_MEASURE_LOOP=1`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["WHISPER_MEASURE_LOOP"] == "1"))
struct ContactsBackupLoopTimeTests {
    @Test func maximumBackup_readOnAWorker_holdsTheLoopUnderAMillisecond() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        let put = try ContactsBackupTests.call(server, "PUT", token: alice.token,
                                               body: ContactsBackupTests.upload(ciphertextBytes: ContactsBackupTests.cap))
        #expect(put.status == 200, "\(put.text)")
        let whisperId = try #require(WhisperID.validate(alice.id))

        let group = try EventLoopGroup(threads: 1)
        group.start()
        let pool = PostgresPool(configuration: PostgresConfiguration(url: try TestEnvironment.databaseURL, poolSize: 2))
        defer {
            pool.shutdown()
            group.shutdown()
        }
        let loop = group.loops[0]
        // CPU time of the loop thread per iteration (from one before-sleep hook to the next:
        // the sleep in between costs none), not wall time: on a shared machine the wall time
        // of an iteration is mostly the time the thread waited for a core. A request's window
        // closes at the end of the iteration that answered it (work that iteration does after
        // the completion, such as freeing the result, counts too).
        let meter = IterationMeter()
        loop.execute { loop.addBeforeSleep { meter.iterationEnded() } }
        nonisolated(unsafe) let store = PostgresContactsBackupStore(pool: pool, loop: loop)
        let pipelined: PostgresPool? = pool

        // Each path read alone, and read plus the response's serialization (what the HTTP
        // driver then does on the loop). Warm up (connections, the pipeline's session), then
        // measure each 10 times.
        var samples: [String: [UInt64]] = [:]
        for round in 0..<12 {
            for serialize in [false, true] {
                let viaWorker: (size: Int, longest: UInt64) = await run(on: loop) { done in
                    meter.start()
                    store.get(whisperId) { result in
                        meter.finish(Self.answer((try? result.get()) ?? nil, serialize: serialize), done)
                    }
                }
                let viaPipeline: (size: Int, longest: UInt64) = await run(on: loop) { done in
                    meter.start()
                    pipelined.query(PostgresContactsBackupStore.getSQL, [.text(whisperId.string)], on: loop, {
                        (result: Result<StoredContactsBackup, StoreError>) in
                        meter.finish(Self.answer(try? result.get(), serialize: serialize), done)
                    }) { rows in
                        guard let row = rows.first, let nonce = row.string("nonce_b64"), let text = row.string("ciphertext_b64"),
                              let millis = row.int64("updated_at_ms") else { return .failure(.unexpectedReply("no row")) }
                        return .success(StoredContactsBackup(nonceText: nonce, ciphertextText: text, updatedAtMillis: millis))
                    }
                }
                #expect(viaWorker.size > 6_600_000 && viaWorker.size == viaPipeline.size)
                guard round >= 2 else { continue }
                let step = serialize ? "read + serialize" : "read"
                samples["worker (now), \(step)", default: []].append(viaWorker.longest)
                samples["loop pipeline (before), \(step)", default: []].append(viaPipeline.longest)
            }
        }
        for (name, values) in samples.sorted(by: { $0.key < $1.key }) {
            let sorted = values.sorted().map { Double($0) / 1e6 }
            print("contacts-backup-loop-time \(name): loop-thread CPU of the longest iteration per GET, ms: median \(sorted[sorted.count / 2]) max \(sorted.last ?? 0)")
        }
        let read = samples["worker (now), read", default: []].sorted()
        #expect(read[read.count / 2] < 1_000_000)
    }

    /// The body's size, or with `serialize` what the HTTP driver then does on the loop: the
    /// response's wire bytes (their size); -1 without a backup.
    private static func answer(_ backup: StoredContactsBackup?, serialize: Bool) -> Int {
        guard let backup else { return -1 }
        return serialize ? HTTPResponse.json(body: backup.json).serialized(closeConnection: true).count : backup.json.count
    }
    private func run<T: Sendable>(on loop: EventLoop, _ body: @escaping @Sendable (_ done: @escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { body { continuation.resume(returning: $0) } }
        }
    }
}

/// The loop thread's CPU per iteration, and the most one iteration took since `start`.
/// Used on the loop only.
private final class IterationMeter: @unchecked Sendable {
    private var last = threadCPUNanoseconds()
    private var longest: UInt64 = 0
    private var answer: (() -> Void)?

    func start() { longest = 0 }

    /// Hands `size` and the longest iteration to `done` once this iteration has ended.
    func finish(_ size: Int, _ done: @escaping @Sendable ((size: Int, longest: UInt64)) -> Void) {
        answer = { [self] in done((size, longest)) }
    }

    func iterationEnded() {
        let now = Self.threadCPUNanoseconds()
        longest = max(longest, now &- last)
        last = now
        answer?()
        answer = nil
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
