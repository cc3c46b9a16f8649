import ArgumentParser
import Foundation
import WhisperClient

/// A failure with its message (to stderr) and the exit code scripts see (sysexits.h values).
struct CLIExit: Error {
    enum Code: Int32 {
        case other = 1
        case usage = 64
        case badInput = 65
        case unavailable = 69
        case queued = 75
        case keyChanged = 76
        case refused = 77
        case config = 78
    }

    let code: Code
    let message: String

    static func fail(_ code: Code, _ message: String) -> CLIExit { CLIExit(code: code, message: message) }

    private init(code: Code, message: String) { (self.code, self.message) = (code, message) }

    /// The exit of any failure: a `CLIExit` as it is, a `ClientError` by its kind, else 1.
    init(_ error: any Error) {
        if let exit = error as? CLIExit {
            self = exit
        } else if let error = error as? ClientError {
            self.init(client: error)
        } else {
            self.init(code: .other, message: "\(error)")
        }
    }

    private init(client error: ClientError) {
        switch error {
        case .transport, .closed, .notConnected: code = .unavailable
        case .revoked, .wrongPassphrase: code = .refused
        case .server(let serverCode, _, _): code = serverCode == "AUTH_FAILED" || serverCode == "USER_BANNED" ? .refused : .other
        case .keyChanged: code = .keyChanged
        case .unknownContact: code = .badInput
        case .noIdentity: code = .config
        case .protocolViolation, .storage: code = .other
        }
        message = error.description
    }

    /// Prints the message and exits with the code.
    func exit() -> Never {
        FileHandle.standardError.write(Data("whisper: \(message)\n".utf8))
        Foundation.exit(code.rawValue)
    }
}

/// Runs `body`, turning every failure into its message and exit code.
func runReportingExit(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        CLIExit(error).exit()
    }
}
