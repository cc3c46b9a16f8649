#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// RLIMIT_NOFILE handling: one process may hold 100,000 sockets only if its limit says so.
public enum FileDescriptorLimit {
    /// Descriptors beyond the sockets: stdio, epoll, eventfds, /proc reads, the admin socket.
    public static let overhead = 64

    /// Raises the soft limit to the hard limit; if `needed` is still more and the process is
    /// privileged, raises the hard limit too. Returns the soft limit now in force; throws a
    /// clear error when `needed` cannot be had.
    @discardableResult
    public static func ensure(_ needed: Int) throws(BenchError) -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { throw .fileLimit(needed: needed, soft: 0, hard: 0) }
        let wanted = rlim_t(needed)
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        if limit.rlim_cur < wanted {
            // Only CAP_SYS_RESOURCE may raise the hard limit (up to fs.nr_open); try, quietly.
            var raised = limit
            raised.rlim_cur = wanted
            raised.rlim_max = max(limit.rlim_max, wanted)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur >= wanted else {
            throw .fileLimit(needed: needed, soft: Int(clamping: limit.rlim_cur), hard: Int(clamping: limit.rlim_max))
        }
        return Int(clamping: limit.rlim_cur)
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
