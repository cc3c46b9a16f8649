import CCurl
import Foundation
import Synchronization
import WhisperOps
import WhisperRuntime
import WhisperServices

/// Deletes attachment objects with presigned `DELETE`s (S3 DeleteObject) through libcurl. Each
/// request blocks, so it runs on a worker thread of this deleter (started for a batch and gone
/// when the queue is empty), never on a loop; the answer comes back on `loop`. 2xx and 404
/// mean the object is gone; anything else, a timeout included, is a failure the GC retries
/// next run.
package final class S3ObjectDeleter: ObjectDeleter {
    /// libcurl's global set-up is not thread-safe: done once, before the first worker starts.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private let presigner: S3Presigner
    private let timeoutSeconds: Int
    private let loop: EventLoop
    private let worker = BlockingWorker(name: "whisper-s3-del")

    package init(settings: S3Settings, timeoutSeconds: Int, loop: EventLoop) {
        presigner = S3Presigner(settings: settings, endpoint: settings.endpoint)
        self.timeoutSeconds = timeoutSeconds
        self.loop = loop
    }

    package func delete(objectKey: String, completion: @escaping (Bool) -> Void) {
        // The URL outlives the request by far less than a minute; a retry next run signs anew.
        let url = presigner.presign(method: "DELETE", objectKey: objectKey, expiresSeconds: 60,
                                    nowSeconds: WallTime.now().secondsSinceEpoch)
        let reply = LoopBound(completion, loop: loop)
        let timeout = timeoutSeconds
        worker.submit {
            let gone = Self.globalInit && Self.perform(url: url, timeoutSeconds: timeout)
            reply.deliver { $0(gone) }
        }
    }

    /// One blocking request; true for 2xx or 404.
    package static func perform(url: String, timeoutSeconds: Int) -> Bool {
        guard let handle = curl_easy_init() else { return false }
        defer { curl_easy_cleanup(handle) }
        let configured = whisper_curl_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
            && whisper_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, "DELETE") == CURLE_OK
            && whisper_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            && whisper_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutSeconds * 1000) == CURLE_OK
            && whisper_curl_discard_body(handle) == CURLE_OK
        guard configured, curl_easy_perform(handle) == CURLE_OK else { return false }
        var status = 0
        guard whisper_curl_response_code(handle, &status) == CURLE_OK else { return false }
        return (200..<300).contains(status) || status == 404
    }
}

/// Runs blocking jobs in order on one thread, started when a job arrives and ended when the
/// queue runs dry (so an idle server holds no thread for it).
package final class BlockingWorker: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var running = false
    }

    private let name: String
    private let state = Mutex(State())

    package init(name: String) { self.name = name }

    package func submit(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.jobs.append(job)
            if state.running { return false }
            state.running = true
            return true
        }
        guard start else { return }
        // Named for the kernel (`top -H`): Foundation's `Thread.name` alone never reaches it.
        NamedThread.start(name) { [self] in drain() }
    }

    private func drain() {
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            if state.jobs.isEmpty {
                state.running = false
                return nil
            }
            return state.jobs.removeFirst()
        }) {
            job()
        }
    }
}
