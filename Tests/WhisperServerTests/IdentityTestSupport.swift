import Foundation
import Testing
import WhisperProtocol
import WhisperStorage
import WhisperTesting

/// Shared helpers of the identity and session tests.
enum Identity {
    /// A pool on the test database for inspecting and seeding rows (bans, devices).
    static func database() throws -> PostgresPool {
        PostgresPool(url: try TestEnvironment.databaseURL, size: 1)
    }

    static func redis() throws -> TestRedis { try TestRedis(url: try TestEnvironment.redisURL) }

    /// A random, checksum-valid Whisper ID that nobody registered.
    static func unregisteredID() -> String { WhisperID.random().string }

    /// Flips one symbol of a valid id so that only the checksum is wrong.
    static func withBadChecksum(_ id: String) -> String {
        var chars = Array(id)
        chars[5] = chars[5] == "A" ? "B" : "A"
        return String(chars)
    }

    static func metricValue(_ server: TestServer, _ series: String) throws -> Double? {
        let text = try TestHTTP.get(port: server.adminPort, "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}

extension TestWebSocket {
    /// Reads frames until `session_revoked`, then expects the close code.
    func expectRevoked(reason: String, closeCode: UInt16) throws {
        let frame = try receiveJSON()
        #expect(frame.frameType == "session_revoked", "\(frame)")
        #expect(frame.payload["reason"] as? String == reason)
        #expect(try receiveClose() == closeCode)
    }
}
