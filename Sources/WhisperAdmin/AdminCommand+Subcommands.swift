import ArgumentParser
import Foundation
import WhisperAdmin
import WhisperProtocol

// One subcommand per admin route (docs/protocol.md "Admin API"), each a thin mapping from
// arguments to the HTTP call.

extension AdminCommand {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET /admin/stats: users, reports, bans, sockets.")
        @OptionGroup var options: AdminOptions

        func run() throws {
            try reportingFailure { try options.call("GET", "/admin/stats") }
        }
    }

    struct User: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "GET /admin/users/{whisperId}: an identity's status, ban, devices (platform, last active).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The Whisper ID (WSP-XXXX-XXXX-XXXX).") var whisperId: String

        static let deviceColumns: [AdminOutput.Column] = [
            .init("DEVICE", "deviceId"), .init("PLATFORM", "platform"), .init("LAST ACTIVE", "lastActiveAt", .time),
            .init("REGISTERED", "createdAt", .time), .init("PUSH", "pushToken"), .init("VOIP", "voipToken"),
        ]

        func run() throws {
            try reportingFailure {
                try options.call("GET", "/admin/users/\(pathSegment(whisperId))") { AdminOutput.fields($0, table: ("devices", Self.deviceColumns)) }
            }
        }
    }

    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An identity's sessions.", subcommands: [Revoke.self])

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "POST /admin/users/{whisperId}/sessions/revoke: log the identity out everywhere, without a ban (audited).")
            @OptionGroup var options: AdminOptions
            @Argument(help: "The Whisper ID.") var whisperId: String

            func run() throws {
                try reportingFailure { try options.call("POST", "/admin/users/\(pathSegment(whisperId))/sessions/revoke") }
            }
        }
    }

    struct GC: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "gc", abstract: "Attachment garbage collection.",
                                                        subcommands: [Run.self])

        struct Run: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "POST /admin/attachments/gc/run: run the attachment GC now; prints how many objects it deleted (audited).")
            @OptionGroup var options: AdminOptions

            func run() throws {
                try reportingFailure { try options.call("POST", "/admin/attachments/gc/run") }
            }
        }
    }

    struct LogLevel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log-level",
            abstract: "GET or PUT /admin/log-level: this node's minimum log level, changed at once (audited).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "debug, info, warn or error; omitted: print the current level.") var level: String?

        func run() throws {
            guard let level else { return try reportingFailure { try options.call("GET", "/admin/log-level") } }
            try reportingFailure { try options.call("PUT", "/admin/log-level", body: jsonBody([("level", .string(level))])) }
        }
    }

    struct Reports: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET /admin/reports: one page of reports, oldest first.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var page: PageOptions
        @Option(help: "open or reviewed.") var status = "open"

        static let columns: [AdminOutput.Column] = [
            .init("ID", "id"), .init("STATUS", "status"), .init("WHISPER ID", "whisperId"), .init("REASON", "reason"),
            .init("VERIFIED", "verified"), .init("REPORTER", "reporterId"), .init("CREATED", "createdAt", .time),
            .init("ACTION", "action"), .init("DETAILS", "details"),
        ]

        func run() throws {
            let path = "/admin/reports" + query([("status", status)] + page.items)
            try reportingFailure { try options.call("GET", path, columns: Self.columns) }
        }
    }

    struct Review: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "POST /admin/reports/{id}/review: dismiss a report, or ban the identity it reports.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The report id.") var id: String
        @Option(help: "dismiss or ban.") var action: String
        @Option(help: "A note for the record.") var note: String?

        func run() throws {
            let body = jsonBody([("action", .string(action)), ("note", note.map(JSONValue.string))])
            let path = "/admin/reports/\(pathSegment(id))/review"
            try reportingFailure { try options.call("POST", path, body: body) }
        }
    }

    struct Ban: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "POST /admin/ban: ban an identity on every node at once.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The Whisper ID (WSP-XXXX-XXXX-XXXX).") var whisperId: String
        @Option(help: "Why, for the record.") var reason: String
        @Option(help: "End of the ban: epoch milliseconds, or a duration from now such as 90m, 12h, 7d (default: permanent).")
        var until: String?

        func run() throws {
            try reportingFailure {
                let untilMillis = try until.map { text in
                    guard let millis = Self.untilMillis(text, now: Int64(Date().timeIntervalSince1970 * 1000)) else {
                        throw AdminFailure(message: "--until: expected epoch milliseconds or N followed by s, m, h or d, got \(text)",
                                           exit: .usage)
                    }
                    return millis
                }
                let body = jsonBody([("whisperId", .string(whisperId)), ("reason", .string(reason)),
                                     ("until", untilMillis.map(JSONValue.int))])
                try options.call("POST", "/admin/ban", body: body)
            }
        }

        /// Epoch milliseconds as given, or `now` plus a duration `N[smhd]`; nil for anything else.
        static func untilMillis(_ text: String, now: Int64) -> Int64? {
            if let millis = Int64(text), millis > 0 { return millis }
            let units: [Character: Int64] = ["s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
            guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count > 0,
                  count <= 36_500 * 86_400_000 / unit
            else { return nil }
            return now + count * unit
        }
    }

    struct Unban: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "POST /admin/unban: lift an identity's ban.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The Whisper ID.") var whisperId: String

        func run() throws {
            try reportingFailure { try options.call("POST", "/admin/unban", body: jsonBody([("whisperId", .string(whisperId))])) }
        }
    }

    struct Bans: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET /admin/bans: one page of bans, by Whisper ID.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var page: PageOptions

        static let columns: [AdminOutput.Column] = [
            .init("WHISPER ID", "whisperId"), .init("ACTIVE", "active"), .init("UNTIL", "until", .time),
            .init("CREATED", "createdAt", .time), .init("REASON", "reason"),
        ]

        func run() throws {
            let path = "/admin/bans" + query(page.items)
            try reportingFailure { try options.call("GET", path, columns: Self.columns) }
        }
    }

    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET /admin/audit: one page of admin actions, newest first.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var page: PageOptions

        static let columns: [AdminOutput.Column] = [
            .init("ID", "id"), .init("TIME", "createdAt", .time), .init("ACTION", "action"), .init("TARGET", "target"),
            .init("FROM", "clientAddress"), .init("DETAILS", "details"),
        ]

        func run() throws {
            let path = "/admin/audit" + query(page.items)
            try reportingFailure { try options.call("GET", path, columns: Self.columns) }
        }
    }
}
