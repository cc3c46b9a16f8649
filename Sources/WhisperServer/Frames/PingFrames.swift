import WhisperOps
import WhisperProtocol

enum PingFrames {
    /// `ping {}` → `pong {serverTime}`; allowed before login.
    static let ping: FrameRoute.OpenHandler = { _, reply in
        reply.send("pong") { $0.member("serverTime", WallTime.now().epochMillis) }
    }
}
