import Foundation
import Synchronization
import Testing
import WhisperRuntime

struct NamedThreadTests {
    @Test func theKernelSeesTheName() async throws {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("whisper-test-1") {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(seen.withLock { $0 } == "whisper-test-1\n")
    }
}
