import ArgumentParser
import Foundation
import WhisperAdmin
import WhisperProtocol

/// `whisper-server admin …`: the admin API from a shell (docs/operations.md "Admin CLI"),
/// through the same HTTP routes as any other client. The token comes from
/// `WHISPER_ADMIN_TOKEN` only (never an argument: it would show in `ps`); the server from
/// `--url`, else `WHISPER_ADMIN_ADDR`, else 127.0.0.1:9090. Prints a table (lists) or
/// `name  value` lines, or with `--json` the server's body as is; a refused call exits 1
/// with the server's error code and message on stderr.
public struct AdminCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Operate the admin API (bans, reports, audit) over HTTP.",
        discussion: "Token from WHISPER_ADMIN_TOKEN; server from --url or WHISPER_ADMIN_ADDR.",
        subcommands: [Stats.self, Reports.self, Review.self, Ban.self, Unban.self, Bans.self, Audit.self, LogLevel.self])

    public init() {}
}

/// What every admin subcommand takes.
struct AdminOptions: ParsableArguments {
    @Option(help: "The admin listener, http://HOST:PORT (default: WHISPER_ADMIN_ADDR, else 127.0.0.1:9090).")
    var url: String?

    @Flag(help: "Print the server's JSON body instead of a table.")
    var json = false

    /// Sends the call and prints its answer; exits non-zero when it failed.
    func call(_ method: String, _ path: String, body: [UInt8]? = nil, columns: [AdminOutput.Column]? = nil) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let token = environment["WHISPER_ADMIN_TOKEN"], !token.isEmpty else {
            throw AdminFailure(message: "WHISPER_ADMIN_TOKEN is not set", code: 2)
        }
        let endpoint = try self.endpoint(environment)
        let response: AdminClient.Response
        do {
            response = try AdminClient(endpoint: endpoint, timeoutSeconds: 15).send(method, path, bearer: token, json: body)
        } catch {
            throw AdminFailure(message: error.description, code: 1)
        }
        guard (200..<300).contains(response.status) else {
            throw AdminFailure(message: AdminOutput.errorLine(status: response.status, body: response.body), code: 1)
        }
        if !json, let rendered = columns.flatMap({ AdminOutput.table(response.body, columns: $0) })
            ?? AdminOutput.fields(response.body) {
            print(rendered, terminator: "")
        } else {
            print(response.text)
        }
    }

    private func endpoint(_ environment: [String: String]) throws -> AdminEndpoint {
        if let url {
            guard let endpoint = AdminEndpoint(url: url) else {
                throw AdminFailure(message: "--url: expected http://HOST:PORT with a numeric host, got \(url)", code: 2)
            }
            return endpoint
        }
        guard let address = environment["WHISPER_ADMIN_ADDR"], !address.isEmpty else {
            return AdminEndpoint(host: "127.0.0.1", port: 9090)
        }
        guard let endpoint = AdminEndpoint(address: address) else {
            throw AdminFailure(message: "WHISPER_ADMIN_ADDR: expected HOST:PORT with a numeric host, got \(address)", code: 2)
        }
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
    let code: Int32
    var description: String { message }
}

/// Runs `body`, turning an `AdminFailure` into its stderr line and exit code.
func reportingFailure(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as AdminFailure {
        FileHandle.standardError.write(Data("whisper-server admin: \(failure.message)\n".utf8))
        throw ExitCode(failure.code)
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
