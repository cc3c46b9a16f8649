import ArgumentParser
import Foundation
import WhisperClient
import WhisperClientLinux

/// `--home`, `--server`, `--ca-file`, shared by every subcommand.
struct GlobalOptions: ParsableArguments {
    @Option(help: "State folder (default: $WHISPER_HOME or ~/.whisper).")
    var home: String?

    @Option(help: "Relay URL, http(s):// or ws(s):// (default: $WHISPER_SERVER or http://127.0.0.1:8080).")
    var server: String?

    @Option(name: .customLong("ca-file"), help: "PEM certificates to trust for TLS instead of the system store.")
    var caFile: String?

    var homePath: String {
        let environment = ProcessInfo.processInfo.environment
        return home ?? environment["WHISPER_HOME"] ?? ((environment["HOME"] ?? ".") + "/.whisper")
    }

    func openHome() throws -> ClientHome {
        do { return try ClientHome(path: homePath) } catch { throw CLIExit.fail(.other, error.description) }
    }

    func transport() throws -> SocketTransport {
        // A TLS write to a reset peer must fail, not kill the process (SocketTransport).
        signal(SIGPIPE, SIG_IGN)
        let text = server ?? ProcessInfo.processInfo.environment["WHISPER_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = ServerURL(text) else { throw CLIExit.fail(.usage, "bad --server URL \(text)") }
        return SocketTransport(server: url, caFile: caFile)
    }

    /// The session of the identity in `--home`, unlocked with the passphrase; events print as they come.
    func openSession() throws -> ClientSession {
        let home = try openHome()
        let locked: LockedIdentity
        do {
            guard let found = try LockedIdentity.load(from: home) else { throw ClientError.noIdentity }
            locked = found
        } catch {
            throw CLIExit(error)
        }
        do {
            let mnemonic = try locked.unlock(passphrase: Passphrase.read(confirm: false))
            let session = try ClientSession(identity: try ClientIdentity(mnemonic: mnemonic), home: home, transport: transport())
            session.onEvent = EventPrinter.print
            return session
        } catch {
            throw CLIExit(error)
        }
    }

    /// Opens the session, connects, runs `body`, disconnects; every failure becomes its exit.
    func connected(_ body: (ClientSession) throws -> Void) throws {
        try runReportingExit {
            let session = try openSession()
            do {
                try session.connect()
                try body(session)
                session.disconnect()
            } catch {
                throw CLIExit(error)
            }
        }
    }
}
