import Testing
@testable import WhisperAdmin

struct AdminOutputTests {
    @Test func table_alignsColumns_rendersTimesAndNulls_andShowsTheNextCursor() throws {
        let body = Array(#"{"items":[{"id":"7","createdAt":0,"note":null,"ok":true},{"id":"12","createdAt":1763820000000,"note":"x\ny","ok":false}],"nextCursor":"12"}"#.utf8)
        let text = try #require(AdminOutput.table(body, columns: [.init("ID", "id"), .init("CREATED", "createdAt", .time),
                                                                   .init("NOTE", "note"), .init("OK", "ok")]))
        #expect(text == """
            ID  CREATED                   NOTE  OK
            7   1970-01-01T00:00:00.000Z  -     yes
            12  2025-11-22T14:00:00.000Z  x y   no
            next: 12

            """, "\(text)")
        #expect(AdminOutput.table(Array(#"{"whisperId":"W"}"#.utf8), columns: []) == nil)
    }

    @Test func fields_andErrorLine() {
        #expect(AdminOutput.fields(Array(#"{"users":3,"serverTime":0,"node":"ab"}"#.utf8))
                == "users       3\nserverTime  1970-01-01T00:00:00.000Z\nnode        ab\n")
        #expect(AdminOutput.errorLine(status: 404, body: Array(#"{"error":{"code":"NOT_FOUND","message":"unknown report"}}"#.utf8))
                == "NOT_FOUND: unknown report (HTTP 404)")
        #expect(AdminOutput.errorLine(status: 502, body: Array("bad gateway".utf8)) == "HTTP 502: bad gateway")
    }

    @Test func fields_withATable_listTheScalarsThenTheArrayAsATable() {
        let body = Array(#"{"whisperId":"W","status":"active","devices":[{"platform":"ios","lastActiveAt":0},{"platform":"android","lastActiveAt":null}]}"#.utf8)
        #expect(AdminOutput.fields(body, table: ("devices", [.init("PLATFORM", "platform"), .init("LAST ACTIVE", "lastActiveAt", .time)]))
                == """
                whisperId  W
                status     active

                PLATFORM  LAST ACTIVE
                ios       1970-01-01T00:00:00.000Z
                android   -

                """)
    }

    @Test func until_takesEpochMillisOrADurationFromNow() {
        let now: Int64 = 1_000_000
        #expect(AdminCommand.Ban.untilMillis("1763820000000", now: now) == 1_763_820_000_000)
        #expect(AdminCommand.Ban.untilMillis("90m", now: now) == now + 5_400_000)
        #expect(AdminCommand.Ban.untilMillis("7d", now: now) == now + 604_800_000)
        for bad in ["", "d", "0h", "-1h", "5w", "soon", "99999999999999999d", "-5"] {
            #expect(AdminCommand.Ban.untilMillis(bad, now: now) == nil, "\(bad)")
        }
    }
}
