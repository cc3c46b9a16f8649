import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage
import WhisperStores

/// Everything one event loop owns: its Redis connection, the services and stores bound to
/// it, the routing table of authenticated sockets, and the connections accepted on its
/// listeners. Touched only on its loop's thread, so none of it needs a lock.
///
/// This file is the wiring; the behaviour is split by concern:
/// - `LoopContext+Connections`: listeners, accepted connections, upgrades, closes, drain;
/// - `LoopContext+Presence`: a socket coming to hold an identity or letting go of it,
///   revocations and the re-check after the revocation subscriber reconnects;
/// - `LoopContext+Delivery`: writing routed frames to this loop's sockets;
/// - `LoopContext+Timers`: the per-loop tick (protocol timers), the node heartbeat and the
///   call ring-timeout sweep.
final class LoopContext {
    let loop: EventLoop
    /// This loop's position in the node (`LiveRoute.loop`).
    let index: Int
    let shared: ServerShared
    let redis: RedisClient
    let auth: AuthService
    let registry: ConnectionRegistry
    let recipients: RecipientDirectory
    let turn: TurnCredentialService
    let keys: KeyDirectory
    let contactsBackup: ContactsBackupService
    let reports: ReportService
    /// nil when no S3 store is configured (`WHISPER_S3_*`): the attachment routes answer 503.
    let attachments: AttachmentService?
    /// The attachment GC (periodic on loop 0 under a Redis lease, and the admin trigger); nil without S3.
    private(set) lazy var attachmentGC: AttachmentCollector? = shared.config.s3.map { settings in
        AttachmentCollector(limits: shared.limits, store: PostgresAttachmentStore(pool: shared.postgres, loop: loop),
                            objects: S3ObjectDeleter(settings: settings, timeoutSeconds: shared.limits.attachmentDeleteTimeoutSeconds,
                                                     loop: loop),
                            log: shared.log, metrics: shared.metrics.base)
    }
    private(set) lazy var attachmentGCRedis = RedisAttachmentGC(redis: redis, keys: shared.redisKeys, node: shared.nodeId)
    private(set) lazy var messaging = makeMessagingService()
    /// This loop's group membership cache: read by group sends, dropped per group by change
    /// notices and wholesale after the subscriber reconnects.
    let groupMembers: GroupDirectory
    private(set) lazy var groups = GroupService(limits: shared.limits, store: groupStore, events: groupEvents,
                                                directory: groupMembers, router: LoopRouter(context: self),
                                                rateLimiter: rateLimiter, wakeUps: wakeUps, log: shared.log)
    private let groupStore: PostgresGroupStore
    private let groupEvents: RedisGroupEventStore
    private(set) lazy var accountDeletion = AccountDeletionService(
        limits: shared.limits, records: PostgresAccountRecordStore(pool: shared.postgres, loop: loop),
        queues: RedisAccountQueueStore(redis: redis, keys: shared.redisKeys),
        sessions: RedisSessionStore(redis: redis, keys: shared.redisKeys), groups: groups,
        verifier: SignatureVerifier(histogram: shared.metrics.base.ed25519Verify), log: shared.log,
        now: { WallTime.now().epochMillis })
    private(set) lazy var typing = TypingService(limits: shared.limits,
                                                 store: RedisTypingStore(redis: redis, keys: shared.redisKeys,
                                                                         node: shared.nodeId, limits: shared.limits),
                                                 router: LoopRouter(context: self), rateLimiter: rateLimiter)
    private(set) lazy var calls = makeCallService()
    private(set) lazy var presence = PresenceService(store: presenceStore, calls: calls, router: LoopRouter(context: self),
                                                     log: shared.log)
    /// Block lists (docs/protocol.md "Blocking"): PostgreSQL, and the Redis copy the scripts check.
    private(set) lazy var blocks = BlockService(limits: shared.limits, store: PostgresBlockStore(pool: shared.postgres, loop: loop),
                                                mirror: RedisBlockMirror(redis: redis, keys: shared.redisKeys),
                                                rateLimiter: rateLimiter, log: shared.log)
    /// Push wake-ups (docs/protocol.md "Push wake-ups"); nil when no provider is configured.
    private(set) lazy var push: PushService? = shared.push.map { senders in
        PushService(limits: shared.limits, claims: RedisWakeUpClaims(redis: redis, keys: shared.redisKeys),
                    devices: PostgresPushDevices(pool: shared.postgres, loop: loop), dispatcher: senders.dispatcher(on: loop),
                    log: shared.log, metrics: shared.metrics.base)
    }
    var wakeUps: WakeUps? { push }
    private(set) lazy var admin = AdminService(store: PostgresAdminStore(pool: shared.postgres, loop: loop), auth: auth,
                                               notices: RedisBanNotices(redis: redis, keys: shared.redisKeys),
                                               log: shared.log, now: { WallTime.now().epochMillis })
    /// One per loop, shared by the services (its hit names must be unique per instance).
    private let rateLimiter: RateLimiter
    let messageStore: RedisMessageStore
    /// Routes and presence (through `presence`), and the node heartbeat.
    let presenceStore: RedisPresence
    var httpDrivers: [UInt64: HTTPDriver] = [:]
    var webSockets: [UInt64: WebSocketDriver] = [:]
    var listeners: [Listener] = []
    /// `wentOffline` calls whose Redis reply is outstanding: the drain waits for them.
    var pendingRouteReleases = 0

    init(loop: EventLoop, index: Int, shared: ServerShared, redis: RedisClient) {
        let limits = shared.limits
        self.loop = loop
        self.index = index
        self.shared = shared
        self.redis = redis
        self.registry = ConnectionRegistry(node: shared.nodeId, authenticatedGauge: shared.metrics.authenticatedConnections)
        let rateLimiter = RateLimiter(limits: shared.config.rateLimits,
                                      store: RedisRateLimitStore(redis: redis, keys: shared.redisKeys),
                                      metrics: shared.metrics.base)
        self.rateLimiter = rateLimiter
        self.auth = AuthService(limits: limits, challenges: RedisChallengeStore(redis: redis, keys: shared.redisKeys),
                                sessions: RedisSessionStore(redis: redis, keys: shared.redisKeys),
                                identities: PostgresIdentityStore(pool: shared.postgres, loop: loop),
                                rateLimiter: rateLimiter, log: shared.log, metrics: shared.metrics.base,
                                now: { WallTime.now().epochMillis })
        self.turn = TurnCredentialService(settings: shared.config.turn, limits: limits, rateLimiter: rateLimiter,
                                          now: { WallTime.now().epochMillis })
        self.contactsBackup = ContactsBackupService(store: PostgresContactsBackupStore(pool: shared.postgres, loop: loop),
                                                    rateLimiter: rateLimiter)
        self.keys = KeyDirectory(identities: PostgresIdentityStore(pool: shared.postgres, loop: loop))
        self.recipients = RecipientDirectory(identities: PostgresIdentityStore(pool: shared.postgres, loop: loop),
                                             now: { WallTime.now().epochMillis })
        self.messageStore = RedisMessageStore(redis: redis, keys: shared.redisKeys, node: shared.nodeId, limits: limits)
        self.presenceStore = RedisPresence(redis: redis, keys: shared.redisKeys, node: shared.nodeId, limits: limits)
        let groupStore = PostgresGroupStore(pool: shared.postgres, loop: loop)
        let groupEvents = RedisGroupEventStore(redis: redis, keys: shared.redisKeys, node: shared.nodeId, limits: limits)
        self.groupStore = groupStore
        self.groupEvents = groupEvents
        self.groupMembers = GroupDirectory(groups: groupStore, events: groupEvents, limits: limits,
                                           now: { WallTime.now().epochMillis })
        self.reports = ReportService(store: PostgresReportStore(pool: shared.postgres, loop: loop), messages: messageStore,
                                     rateLimiter: rateLimiter)
        self.attachments = shared.config.s3.map { settings in
            AttachmentService(settings: settings, limits: limits,
                              store: PostgresAttachmentStore(pool: shared.postgres, loop: loop), rateLimiter: rateLimiter,
                              log: shared.log, metrics: shared.metrics.base, now: { WallTime.now().epochMillis })
        }
        registry.onLeave = { [unowned self] socket, whisperId in self.wentOffline(socket, as: whisperId) }
    }

    private func makeMessagingService() -> MessagingService {
        MessagingService(limits: shared.limits, store: messageStore, router: LoopRouter(context: self),
                         recipients: recipients, groups: groupMembers, rateLimiter: rateLimiter, attachments: attachments,
                         wakeUps: wakeUps, verifier: SignatureVerifier(histogram: shared.metrics.base.ed25519Verify), log: shared.log,
                         metrics: shared.metrics.base, now: { WallTime.now().epochMillis })
    }

    private func makeCallService() -> CallService {
        CallService(limits: shared.limits,
                    store: RedisCallStore(redis: redis, keys: shared.redisKeys, node: shared.nodeId, limits: shared.limits),
                    router: LoopRouter(context: self), recipients: recipients, rateLimiter: rateLimiter,
                    verifier: SignatureVerifier(histogram: shared.metrics.base.ed25519Verify),
                    wakeUps: wakeUps, log: shared.log, metrics: shared.metrics.base,
                    now: { WallTime.now().epochMillis })
    }
}
