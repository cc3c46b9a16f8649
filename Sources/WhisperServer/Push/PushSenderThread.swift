import CCurl
import WhisperOps
import WhisperProtocol
import WhisperServices

/// The sender's thread, top to bottom, for each job:
/// 1. the provider builds the request (with a fresh credential when needed) → none: `failed`;
/// 2. it runs as one transfer of the multi handle (HTTP/2 stream), bounded by its timeout;
/// 3. the answer: success → `sent`; a dead token → `unregistered`, removed from PostgreSQL;
///    429, 5xx or a transport error → `retried` after exponential backoff with jitter (at least
///    the answer's `Retry-After`), up to `Limits.pushMaxAttempts` attempts, then `failed`; a
///    refused credential → a new credential and one more attempt, then `failed`; a certificate
///    that does not verify, or any other answer → `failed` at once.
///
/// While the provider's credential cannot be had (FCM's token endpoint is unavailable and its
/// `CredentialBackoff` lasts), the thread takes no job from the queue (which stays bounded:
/// beyond its capacity pushes are `dropped`) and starts no retry; an attempt that found no
/// credential waits for the backoff's end without using up an attempt. So N queued pushes
/// during an outage cost one token request per backoff step, not N.
final class PushSenderThread {
    private struct Attempt {
        let entry: PushSender.Entry
        var job: PushJob { entry.job }
        let number: Int
        let refreshed: Bool
        let firstStartedNanos: UInt64
    }

    private struct Transfer {
        let attempt: Attempt
        let headers: UnsafeMutablePointer<curl_slist>?
        let body: UnsafeMutablePointer<whisper_curl_body>
    }

    private let provider: PushProvider
    private let multi: UnsafeMutableRawPointer
    private let transport: PushTransport
    private let maxAttempts: Int
    private let retryBaseMillis: Int64
    private let retryMaxMillis: Int64
    private let outcomes: PushOutcomes
    private let log: Log
    private var transfers: [UInt: Transfer] = [:]
    /// Attempts waiting for their backoff, with the monotonic time they are due.
    private var retries: [(dueNanos: UInt64, attempt: Attempt)] = []

    init(provider: PushProvider, multi: UnsafeMutableRawPointer, transport: PushTransport, limits: Limits,
         outcomes: PushOutcomes, log: Log) {
        self.provider = provider
        self.multi = multi
        self.transport = transport
        self.maxAttempts = max(1, limits.pushMaxAttempts)
        self.retryBaseMillis = limits.pushRetryBaseMillis
        self.retryMaxMillis = limits.pushRetryMaxMillis
        self.outcomes = outcomes
        self.log = log
    }

    /// Runs until the sender stops (for the life of the process, or a test's server).
    func run(turn: (_ held: Int, _ take: Bool) -> [PushSender.Entry]?) {
        while true {
            let now = MonotonicClock.now()
            let credentialWait = provider.credentialUnavailableUntil(nowNanos: now)
            guard let jobs = turn(held, credentialWait == nil) else { return stopped() }
            for entry in jobs {
                start(Attempt(entry: entry, number: 1, refreshed: false, firstStartedNanos: now))
            }
            if credentialWait == nil { startDueRetries(now: now) }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            _ = turn(held, false)
            // Woken early by `curl_multi_wakeup` (a new job, `stop`) or by socket activity.
            var woken: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, waitMillis(now: MonotonicClock.now(), credentialWait: credentialWait), &woken)
        }
    }

    /// Jobs this thread holds (see `PushSender.outstanding`).
    private var held: Int { transfers.count + retries.count }

    private func stopped() {
        for (key, transfer) in transfers {
            guard let handle = UnsafeMutableRawPointer(bitPattern: key) else { continue }
            _ = curl_multi_remove_handle(multi, handle)
            curl_easy_cleanup(handle)
            curl_slist_free_all(transfer.headers)
            transfer.body.deallocate()
        }
        transfers.removeAll()
        retries.removeAll()
    }

    // MARK: Steps 1–2

    private func start(_ attempt: Attempt) {
        guard let request = provider.request(for: attempt.job, nowSeconds: WallTime.now().secondsSinceEpoch) else {
            if let until = provider.credentialUnavailableUntil(nowNanos: MonotonicClock.now()) {
                // Not this push's failure: it waits for the provider's credential.
                retries.append((until, attempt))
                return
            }
            return finish(attempt, .failed(reason: "no credential"), status: 0)
        }
        guard let handle = curl_easy_init() else { return finish(attempt, .failed(reason: "curl_easy_init"), status: 0) }
        let headers = PushTransport.headerList(request)
        let body = UnsafeMutablePointer<whisper_curl_body>.allocate(capacity: 1)
        body.pointee.count = 0
        guard transport.configure(handle, request, headers: headers), whisper_curl_collect_body(handle, body) == CURLE_OK,
              curl_multi_add_handle(multi, handle) == CURLM_OK
        else {
            curl_easy_cleanup(handle)
            curl_slist_free_all(headers)
            body.deallocate()
            return finish(attempt, .failed(reason: "request set-up"), status: 0)
        }
        transfers[UInt(bitPattern: handle)] = Transfer(attempt: attempt, headers: headers, body: body)
    }

    private func startDueRetries(now: UInt64) {
        guard retries.contains(where: { $0.dueNanos <= now }) else { return }
        let due = retries.filter { $0.dueNanos <= now }
        retries.removeAll { $0.dueNanos <= now }
        for retry in due { start(retry.attempt) }
    }

    /// Until the next retry is due, or while the credential waits, until its backoff ends
    /// (queued jobs are taken then); at most 1 s.
    private func waitMillis(now: UInt64, credentialWait: UInt64?) -> Int32 {
        guard let next = credentialWait ?? retries.map(\.dueNanos).min() else { return 1000 }
        return next <= now ? 0 : Int32(min(1000, (next - now) / 1_000_000 + 1))
    }

    // MARK: Step 3

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let result = whisper_curl_message_result(message)
            var status = 0
            _ = whisper_curl_response_code(handle, &status)
            var retryAfterSeconds: curl_off_t = 0
            _ = whisper_curl_retry_after(handle, &retryAfterSeconds)
            guard let transfer = transfers.removeValue(forKey: UInt(bitPattern: handle)) else { continue }
            let body = PushTransport.bytes(of: transfer.body)
            _ = curl_multi_remove_handle(multi, handle)
            curl_easy_cleanup(handle)
            curl_slist_free_all(transfer.headers)
            transfer.body.deallocate()

            let verdict: PushVerdict
            if result == CURLE_OK {
                verdict = provider.verdict(status: status, body: body)
            } else if Self.isPermanent(result) {
                verdict = .failed(reason: String(cString: curl_easy_strerror(result)))
            } else {
                verdict = .retry
            }
            decide(transfer.attempt, verdict, status: status, retryAfterSeconds: Int64(retryAfterSeconds))
        }
    }

    private func decide(_ attempt: Attempt, _ verdict: PushVerdict, status: Int, retryAfterSeconds: Int64) {
        let next = Attempt(entry: attempt.entry, number: attempt.number + 1, refreshed: attempt.refreshed,
                           firstStartedNanos: attempt.firstStartedNanos)
        switch verdict {
        case .sent, .unregistered, .failed:
            finish(attempt, verdict, status: status)
        case .refreshCredential:
            guard !attempt.refreshed, attempt.number < maxAttempts else {
                return finish(attempt, .failed(reason: "credential refused"), status: status)
            }
            provider.credentialRefused()
            outcomes.count(provider.name, "retried")
            start(Attempt(entry: next.entry, number: next.number, refreshed: true, firstStartedNanos: next.firstStartedNanos))
        case .retry:
            guard attempt.number < maxAttempts else {
                return finish(attempt, .failed(reason: "gave up after \(attempt.number) attempts"), status: status)
            }
            outcomes.count(provider.name, "retried")
            let delay = Self.backoffMillis(attempt: attempt.number, baseMillis: retryBaseMillis, maxMillis: retryMaxMillis,
                                           retryAfterSeconds: retryAfterSeconds)
            retries.append((MonotonicClock.now() + UInt64(delay) * 1_000_000, next))
        }
    }

    private func finish(_ attempt: Attempt, _ verdict: PushVerdict, status: Int) {
        let job = attempt.job
        outcomes.count(provider.name, verdict.metricResult)
        let kind = job.kind == .wake ? "wake" : "call"
        let elapsedMs = Double(MonotonicClock.now() - attempt.firstStartedNanos) / 1e6
        switch verdict {
        case .sent:
            // Per wake-up, so per message or call: debug (failures stay at warn).
            log.debug("push_sent", whisperId: job.user.string, latencyMs: elapsedMs,
                     ["provider": .string(provider.name.rawValue), "kind": .string(kind), "attempts": .int(attempt.number)])
        case .unregistered:
            outcomes.unregistered(job)
            log.info("push_token_unregistered", whisperId: job.user.string,
                     ["provider": .string(provider.name.rawValue), "voip": .bool(job.isVoIPToken), "status": .int(status)])
        case .failed(let reason):
            log.warn("push_failed", whisperId: job.user.string, latencyMs: elapsedMs,
                     ["provider": .string(provider.name.rawValue), "kind": .string(kind), "attempts": .int(attempt.number),
                      "status": .int(status), "reason": .string(reason)])
        case .retry, .refreshCredential:
            break
        }
        attempt.entry.finished(verdict.isDelivered)
    }

    /// Attempt `n` failed: wait `base × 2^(n-1)`, half of it random ("equal jitter", so
    /// retries from many pushes spread out but each still backs off), at least what
    /// `Retry-After` asked for, and never more than `maxMillis`.
    static func backoffMillis(attempt: Int, baseMillis: Int64, maxMillis: Int64, retryAfterSeconds: Int64,
                              random: (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }) -> Int64 {
        let exponential = min(maxMillis, baseMillis << Int64(min(max(0, attempt - 1), 20)))
        let jittered = exponential / 2 + random(0...(exponential - exponential / 2))
        let asked = retryAfterSeconds > 0 ? min(retryAfterSeconds, maxMillis / 1000) * 1000 : 0
        return min(maxMillis, max(jittered, asked))
    }

    /// Transport errors that a retry cannot mend: the endpoint's certificate, the URL.
    static func isPermanent(_ code: CURLcode) -> Bool {
        [CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE, CURLE_UNSUPPORTED_PROTOCOL,
         CURLE_URL_MALFORMAT, CURLE_SSL_ISSUER_ERROR].contains(code)
    }
}
