import WhisperServices

/// The loop's periodic work. The tick drives protocol timers of this loop's connections
/// (WebSocket keepalive and idle close, HTTP request and idle timeouts) and prunes the
/// registry; loop 0 of every node also runs the node heartbeat, the call sweep, the
/// presence sweep and (with S3 configured) the attachment GC.
extension LoopContext {
    func startTimers() {
        scheduleTick()
        if index == 0 {
            heartbeat()
            sweepCalls()
            presenceSweep()
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

    /// Loop 0 of every node, every `Limits.callSweepIntervalMillis`: pushes callees that did not
    /// confirm an offer by its confirmation deadline, ends calls past their ring deadline. Every
    /// node sweeps and Redis gives each to exactly one of them, so both fire even when the node
    /// that started the call has died.
    private func sweepCalls() {
        let interval = UInt64(shared.limits.callSweepIntervalMillis) * 1_000_000
        guard redis.isConnected else {
            loop.schedule(afterNanoseconds: interval) { [weak self] in self?.sweepCalls() }
            return
        }
        calls.sweep { [weak self] result in
            guard let self else { return }
            if case .failure(let error) = result {
                self.shared.log.warn("call_sweep_failed", ["reason": .string(error.logReason)])
            }
            self.loop.schedule(afterNanoseconds: interval) { [weak self] in self?.sweepCalls() }
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
    /// `whisper_pending_messages`. Retried after a second when it fails.
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
            case .failure(let error):
                self.shared.log.warn("heartbeat_failed", ["reason": .string(error.description)])
                delay = 1_000_000_000
            }
            self.loop.schedule(afterNanoseconds: delay) { [weak self] in self?.heartbeat() }
        }
    }

    /// Loop 0 of every node, every `Limits.presenceSweepIntervalMillis`: announce the status
    /// changes that became due and take the users of dead nodes offline (docs/protocol.md
    /// "Presence"). Each due change is claimed inside the script, so one node announces it.
    private func presenceSweep() {
        let interval = UInt64(shared.limits.presenceSweepIntervalMillis) * 1_000_000
        guard redis.isConnected else {
            loop.schedule(afterNanoseconds: interval) { [weak self] in self?.presenceSweep() }
            return
        }
        presence.sweep { [weak self] result in
            guard let self else { return }
            if case .failure(let error) = result {
                self.shared.log.warn("presence_sweep_failed", ["reason": .string(error.logReason)])
            }
            self.loop.schedule(afterNanoseconds: interval) { [weak self] in self?.presenceSweep() }
        }
    }
}
