import Testing
@testable import WhisperStorage

@Suite("Postgres values, rows and errors (no server)")
struct PostgresValueTests {
    @Test func textEncoding_matchesPostgresTextFormat() {
        #expect(PostgresValue.int64(-5).textEncoding == "-5")
        #expect(PostgresValue.bool(true).textEncoding == "t")
        #expect(PostgresValue.bytea([0x00, 0xab, 0xff]).textEncoding == "\\x00abff")
        #expect(PostgresValue.text("x").typeOID == 0)
        #expect(PostgresValue.int64(1).typeOID == 20)
    }

    @Test func rowGetters_returnNilInsteadOfTrapping() {
        let rows = PostgresRows(columns: ["a", "b"], values: [["12", nil], ["x", "\\x0g"]], affectedRows: 0)
        #expect(rows.count == 2)
        #expect(rows[0].int64("a") == 12)
        #expect(rows[0].int64("b") == nil)
        #expect(rows[0].isNull("b"))
        #expect(rows[0].string("missing") == nil)
        #expect(rows[0].string(7) == nil)
        #expect(rows[1].int64("a") == nil)
        #expect(rows[1].bytes("b") == nil)      // not hex
        #expect(rows[1].bool("a") == nil)
        #expect(rows.string(5, "a") == nil)
    }

    @Test func byteaParsing_acceptsHexOutputOnly() {
        #expect(PostgresRow.parseBytea("\\x") == [])
        #expect(PostgresRow.parseBytea("\\xDEADbeef") == [0xde, 0xad, 0xbe, 0xef])
        #expect(PostgresRow.parseBytea("\\x123") == nil)
        #expect(PostgresRow.parseBytea("abc") == nil)
    }

    @Test func serverErrors_mapToClosedCases() {
        #expect(PostgresError.fromServer(sqlState: "23505", message: "m", constraint: "c")
                == .uniqueViolation(constraint: "c", message: "m"))
        #expect(PostgresError.fromServer(sqlState: "57014", message: "m", constraint: nil) == .timeout)
        #expect(PostgresError.fromServer(sqlState: "57P01", message: "m", constraint: nil).isConnectionError)
        #expect(PostgresError.fromServer(sqlState: "08006", message: "m", constraint: nil).isConnectionError)
        #expect(PostgresError.fromServer(sqlState: "42601", message: "m", constraint: nil)
                == .queryFailed(sqlState: "42601", message: "m"))
    }

    @Test func redactedURL_hidesThePassword() {
        #expect(PostgresConfiguration(url: "postgresql://u:secret@h:5/db").redactedURL == "postgresql://u:***@h:5/db")
        #expect(PostgresConfiguration(url: "postgresql://u@h:5/db").redactedURL == "postgresql://u@h:5/db")
    }

    @Test func backoff_doublesUpToTheMaximum_withJitter() {
        var backoff = Backoff(initialNanos: 100, maximumNanos: 400)
        let delays = (0..<5).map { _ in backoff.next() }
        #expect((50...100).contains(delays[0]))
        #expect((100...200).contains(delays[1]))
        #expect((200...400).contains(delays[2]))
        #expect((200...400).contains(delays[4]))
        backoff.reset()
        #expect((50...100).contains(backoff.next()))
    }
}
