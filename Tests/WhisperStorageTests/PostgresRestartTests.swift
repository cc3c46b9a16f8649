import Foundation
import Testing
import WhisperStorage
import WhisperTesting

@Suite("PostgresPool across a server restart")
struct PostgresRestartTests {
    @Test(.timeLimit(.minutes(3)))
    func restart_failsFastDuringOutage_andRecoversWithoutRestartingThePool() async throws {
        try await withPrivateService(.pg) { server in
            let pool = PostgresPool(configuration: PostgresConfiguration(url: server.url, poolSize: 2),
                                    log: TestEnvironment.log)
            defer { pool.shutdown() }

            #expect(try await pool.query("SELECT 1").first?.int64(0) == 1)
            #expect(await eventually(within: 5) { pool.connectedWorkers == 2 })

            try await server.stop()
            for _ in 0..<3 {
                let (result, seconds) = await measure { await pgResult { try await pool.query("SELECT 1") } }
                guard case .failure(let error) = result else {
                    Issue.record("query succeeded while PostgreSQL was stopped")
                    return
                }
                #expect(error.isConnectionError, "got \(error)")
                // Failing, not queued: well under the 15 s queue timeout a queued query would wait (a
                // loaded machine makes a refused connect take seconds).
                #expect(seconds < 10, "a query during the outage took \(seconds) s")
            }
            #expect(await pool.ping() == false)

            try await server.start()
            let (recovered, seconds) = await measure {
                await eventually(within: 10, every: 0.1) { (try? await pool.query("SELECT 1")) != nil }
            }
            #expect(recovered, "no successful query within 10 s of the restart")
            #expect(seconds < 5)
            // Both workers come back, not just the one that happened to take the query.
            for _ in 0..<6 {
                #expect(try await pool.query("SELECT 1").first?.int64(0) == 1)
            }
            #expect(pool.reconnectCount >= 1)

            // A restart nobody queried through: the idle sessions are stale, yet the first
            // query afterwards must succeed (the worker notices before using them).
            try await server.stop()
            try await server.start()
            for _ in 0..<4 {
                let result = await pgResult { try await pool.query("SELECT 1") }
                #expect(result.failureValue == nil, "query on a stale session failed: \(result)")
            }
        }
    }
}
