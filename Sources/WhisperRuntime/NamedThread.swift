import CLinux
import Foundation

/// A `Thread` whose name reaches the kernel, so `top -H`, perf and /proc/<pid>/task/*/comm
/// show it (at most 15 bytes). Foundation's `Thread.name`, set before `start()`, did not:
/// every thread of ours appeared as "…root.default-qos".
public enum NamedThread {
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            clinux_set_thread_name(name)
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
