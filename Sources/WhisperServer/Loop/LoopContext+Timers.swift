import WhisperServices

/// The loop's periodic work. The tick drives protocol timers of this loop's connections
/// (WebSocket keepalive and idle close, HTTP request and idle timeouts) and prunes the
/// registry; loop 0 of every node also runs the node heartbeat, the sweep (calls and
/// presence) and (with S3 configured) the attachment GC.
extension LoopContext {
    func startTimers() {
        scheduleTick()
        if index == 0 {
            heartbeat()
            sweep()
            if attachmentGC != nil { scheduleAttachmentGC() }
        }
    }

    /// Loop 0 of every node, every `Limits.attachmentGCIntervalSeconds` (the first one interval
    /// after start): the node that takes the Redis lease (PX = the interval) runs the attachment
    /// GC, so one node per interval does (docs/operations.md "Attachments").
    private func scheduleAttachmentGC() {
        let seconds = shared.limits.attachmentGCIntervalSeconds
        loop.schedule(afterNanoseconds: UInt64(seconds) * 1_000_000_000) { [weak self] in
            guard let self, let collector = self.attachmentGC else { return }
            guard self.redis.isConnected else { return self.scheduleAttachmentGC() }
            self.attachmentGCRedis.acquireLease(millis: Int64(seconds) * 1000) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(true):
                    collector.run { [weak self] result in
                        if case .failure(let error) = result {
                            self?.shared.log.warn("attachment_gc_failed", ["reason": .string(error.logReason)])
                        }
                        self?.scheduleAttachmentGC()
                    }
                case .success(false):
                    self.scheduleAttachmentGC()
                case .failure(let error):
                    self.shared.log.warn("attachment_gc_failed", ["reason": .string(error.description)])
                    self.scheduleAttachmentGC()
                }
            }
        }
    }

    /// Loop 0 of every node, the sweep: every `Limits.callSweepIntervalMillis` the calls
    /// (callees that did not confirm an offer by its confirmation deadline are pushed, calls past
    /// their ring deadline end), every `Limits.presenceSweepIntervalMillis` presence (the status
    /// changes that became due are announced, the users of dead nodes go offline;
    /// docs/protocol.md "Presence"). Every node sweeps and each item is claimed inside its
    /// script, so exactly one node handles it, even when the node that started a call died. One
    /// timer and one round trip for both; two scripts, because calls and presence are keys of
    /// different shards under Redis Cluster (docs/scaling.md). `…Due`: monotonic ns.
    private func sweep(callsDue: UInt64 = 0, presenceDue: UInt64 = 0) {
        let callsEvery = UInt64(shared.limits.callSweepIntervalMillis) * 1_000_000
        let presenceEvery = UInt64(shared.limits.presenceSweepIntervalMillis) * 1_000_000
        let again = { [weak self] (calls: UInt64, presence: UInt64) -> Void in
            _ = self?.loop.schedule(afterNanoseconds: min(callsEvery, presenceEvery)) { [weak self] in
                self?.sweep(callsDue: calls, presenceDue: presence)
            }
        }
        let now = loop.now
        let sweepsCalls = now >= callsDue, sweepsPresence = now >= presenceDue
        guard redis.isConnected, sweepsCalls || sweepsPresence else { return again(callsDue, presenceDue) }
        let nextCalls = sweepsCalls ? now + callsEvery : callsDue
        let nextPresence = sweepsPresence ? now + presenceEvery : presenceDue
        var outstanding = (sweepsCalls ? 1 : 0) + (sweepsPresence ? 1 : 0)
        let finished = {
            outstanding -= 1
            if outstanding == 0 { again(nextCalls, nextPresence) }
        }
        if sweepsCalls {
            calls.sweep { [shared] result in
                if case .failure(let error) = result {
                    shared.log.warn("call_sweep_failed", ["reason": .string(error.logReason)])
                }
                finished()
            }
        }
        if sweepsPresence {
            presence.sweep { [shared] result in
                if case .failure(let error) = result {
                    shared.log.warn("presence_sweep_failed", ["reason": .string(error.logReason)])
                }
                finished()
            }
        }
    }

    private func scheduleTick() {
        loop.schedule(afterNanoseconds: 1_000_000_000) { [weak self] in
            guard let self else { return }
            let now = self.loop.now
            for driver in self.httpDrivers.values { driver.tick(now: now) }
            for socket in self.webSockets.values { socket.tick(now: now) }
            self.registry.prune(now: now)
            self.scheduleTick()
        }
    }

    /// Loop 0 of every node, every `Limits.nodeHeartbeatSeconds`: renew the node's liveness
    /// key (routes to a dead node are ignored), sweep expired pending queues, refresh
    /// `whisper_pending_messages`, send the owed push wake-ups that are due
    /// (`PushService.resendOwed`). Retried after a second when it fails.
    private func heartbeat() {
        guard redis.isConnected else {
            // Still connecting (start-up) or reconnecting: the Redis client logs that already.
            loop.schedule(afterNanoseconds: 200_000_000) { [weak self] in self?.heartbeat() }
            return
        }
        presenceStore.heartbeat { [weak self] result in
            guard let self else { return }
            var delay = UInt64(self.shared.limits.nodeHeartbeatSeconds) * 1_000_000_000
            switch result {
            case .success(let count):
                self.shared.readinessProbe.heartbeatWritten()
                self.shared.metrics.base.pendingMessages.set(Int(clamping: max(0, count)))
                self.push?.resendOwed { [shared = self.shared] result in
                    if case .failure(let error) = result {
                        shared.log.warn("push_resend_failed", ["reason": .string(error.description)])
                    }
                }
            case .failure(let error):
                self.shared.log.warn("heartbeat_failed", ["reason": .string(error.description)])
                delay = 1_000_000_000
            }
            self.loop.schedule(afterNanoseconds: delay) { [weak self] in self?.heartbeat() }
        }
    }
}
