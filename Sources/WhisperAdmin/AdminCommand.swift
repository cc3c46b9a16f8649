import ArgumentParser
import Foundation
import WhisperAdmin
import WhisperProtocol

/// `whisper-server admin …`: the admin API from a shell (docs/operations.md "Admin CLI"),
/// through the same HTTP routes as any other client. The token comes from
/// `WHISPER_ADMIN_TOKEN` only (never an argument: it would show in `ps`); the server from
/// `--url` (http or https, a name or an address), else `WHISPER_ADMIN_ADDR` (https when
/// `WHISPER_TLS_CERT` is set, as the listeners then speak TLS), else 127.0.0.1:9090. Prints a
/// table (lists) or `name  value` lines, or with `--json` the server's body as is. Exit
/// codes: `AdminExit`.
public struct AdminCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Operate the admin API (users, bans, reports, audit) over HTTP or HTTPS.",
        discussion: """
            Token from WHISPER_ADMIN_TOKEN; server from --url or WHISPER_ADMIN_ADDR. Exit status: 0 done, \
            1 the server refused the call, 2 usage error, 69 the admin listener could not be reached.
            """,
        subcommands: [Stats.self, User.self, Sessions.self, Reports.self, Review.self, Ban.self, Unban.self, Bans.self,
                      Audit.self, LogLevel.self, GC.self])

    public init() {}
}

/// The exit statuses of `whisper-server admin` (docs/operations.md "Admin CLI"). 69 is
/// sysexits' EX_UNAVAILABLE, as the `whisper` client CLI uses it for a server it cannot reach.
public enum AdminExit: Int32, Sendable {
    /// The server answered with an error (its code and message on stderr).
    case refused = 1
    /// A usage error: a bad argument or option, no token (ArgumentParser's own, 64, is mapped
    /// to this by `usageExitStatus`).
    case usage = 2
    /// No answer: the name, the connection, the TLS handshake or the time failed.
    case unavailable = 69

    /// What `whisper-server` exits with instead of ArgumentParser's status `code` after
    /// parsing or running any command: a usage error (EX_USAGE, 64) is 2, the rest as is.
    public static func usageExitStatus(_ code: Int32) -> Int32 {
        code == ExitCode.validationFailure.rawValue ? usage.rawValue : code
    }
}

/// What every admin subcommand takes.
struct AdminOptions: ParsableArguments {
    @Option(name: [.customLong("url"), .customLong("admin-url")],
            help: "The admin listener, http[s]://HOST[:PORT] (default: WHISPER_ADMIN_ADDR, else 127.0.0.1:9090).")
    var url: String?

    @Option(help: "A PEM CA bundle to verify an https admin listener with (default: WHISPER_ADMIN_CA_FILE, else the system's CAs).")
    var caFile: String?

    @Flag(help: "Print the server's JSON body instead of a table.")
    var json = false

    /// Sends the call and prints its answer; exits non-zero when it failed.
    func call(_ method: String, _ path: String, body: [UInt8]? = nil, columns: [AdminOutput.Column]? = nil,
              render: (([UInt8]) -> String?)? = nil) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let token = environment["WHISPER_ADMIN_TOKEN"], !token.isEmpty else {
            throw AdminFailure(message: "WHISPER_ADMIN_TOKEN is not set", exit: .usage)
        }
        let client = AdminClient(endpoint: try endpoint(environment), timeoutSeconds: 15,
                                 caFile: caFile ?? environment["WHISPER_ADMIN_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
        let response: AdminClient.Response
        do {
            response = try client.send(method, path, bearer: token, json: body)
        } catch {
            throw AdminFailure(message: error.description, exit: error == .tooLarge ? .refused : .unavailable)
        }
        guard (200..<300).contains(response.status) else {
            throw AdminFailure(message: AdminOutput.errorLine(status: response.status, body: response.body), exit: .refused)
        }
        if !json, let rendered = render?(response.body) ?? columns.flatMap({ AdminOutput.table(response.body, columns: $0) })
            ?? AdminOutput.fields(response.body) {
            print(rendered, terminator: "")
        } else {
            print(response.text)
        }
    }

    private func endpoint(_ environment: [String: String]) throws -> AdminEndpoint {
        if let url {
            guard let endpoint = AdminEndpoint(url: url) else {
                throw AdminFailure(message: "--url: expected http[s]://HOST[:PORT], got \(url)", exit: .usage)
            }
            return endpoint
        }
        guard let address = environment["WHISPER_ADMIN_ADDR"], !address.isEmpty else {
            return AdminEndpoint(host: "127.0.0.1", port: 9090)
        }
        guard var endpoint = AdminEndpoint(address: address) else {
            throw AdminFailure(message: "WHISPER_ADMIN_ADDR: expected HOST:PORT, got \(address)", exit: .usage)
        }
        if environment["WHISPER_TLS_CERT"].map({ !$0.isEmpty }) == true { endpoint.scheme = .https }
        return endpoint
    }
}

/// What every list subcommand takes: which page, and how long.
struct PageOptions: ParsableArguments {
    @Option(help: "The nextCursor of the previous page.") var cursor: String?
    @Option(help: "Items per page (server default 50, at most 200).") var limit: Int?

    var items: [(String, String?)] { [("cursor", cursor), ("limit", limit.map(String.init))] }
}

/// A failed admin call: printed on stderr as one line, then the exit code.
struct AdminFailure: Error, CustomStringConvertible {
    let message: String
    let exit: AdminExit
    var description: String { message }
}

/// Runs `body`, turning an `AdminFailure` into its stderr line and exit code.
func reportingFailure(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as AdminFailure {
        FileHandle.standardError.write(Data("whisper-server admin: \(failure.message)\n".utf8))
        throw ExitCode(failure.exit.rawValue)
    }
}

/// `?name=value&…` from the options that are set, percent-encoded.
func query(_ items: [(String, String?)]) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
    let pairs = items.compactMap { name, value in
        value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
    }
    return pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&")
}

/// `text` as one percent-encoded path segment (a typo cannot reach another route).
func pathSegment(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-"))) ?? ""
}

/// A JSON object body from the members that are set.
func jsonBody(_ members: [(String, JSONValue?)]) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    for (key, value) in members {
        guard let value else { continue }
        try? writer.member(key, value: value)
    }
    writer.endObject()
    return writer.bytes
}
