#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation

/// The passphrase that encrypts the seed at rest: `WHISPER_PASSPHRASE`, else asked on the
/// terminal without echo (twice when it is being chosen).
enum Passphrase {
    static func read(confirm: Bool) throws -> String {
        if let value = ProcessInfo.processInfo.environment["WHISPER_PASSPHRASE"] { return value }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIExit.fail(.usage, "set WHISPER_PASSPHRASE (no terminal to ask on)")
        }
        let first = prompt("Passphrase: ")
        if confirm {
            guard prompt("Passphrase again: ") == first else { throw CLIExit.fail(.badInput, "the passphrases differ") }
        }
        return first
    }

    private static func prompt(_ text: String) -> String {
        guard let pointer = getpass(text) else { return "" }
        return String(cString: pointer)
    }
}
