import ArgumentParser
import Foundation
import WhisperClient
import WhisperProtocol

/// `whisper init`: a new identity. The 12 words are printed once and never stored in clear.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create an identity, print its 12 words once, and register it with the server.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingExit {
            let home = try global.openHome()
            guard try !Self.hasIdentity(home) else {
                throw CLIExit.fail(.config, "\(home.path) already holds an identity")
            }
            let mnemonic = Mnemonic.generate()
            try LockedIdentity(mnemonic: mnemonic, passphrase: Passphrase.read(confirm: true)).save(in: home)
            FileHandle.standardError.write(Data("Your seed phrase (write it down; it is shown only this once):\n".utf8))
            EventPrinter.line(mnemonic.phrase)
            try register(global)
        }
    }

    static func hasIdentity(_ home: ClientHome) throws -> Bool {
        do { return try LockedIdentity.load(from: home) != nil } catch { throw CLIExit(error) }
    }
}

/// `whisper recover`: the identity of a seed phrase (from stdin or the terminal) on this
/// device; the server recognises its keys and gives back its Whisper ID and queue.
struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore an identity from its 12 words (read from stdin) and log it in; pending messages print.")
    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("phrase-file"), help: "Read the phrase from this file instead of stdin.")
    var phraseFile: String?

    func run() throws {
        try runReportingExit {
            let home = try global.openHome()
            guard try !Init.hasIdentity(home) else { throw CLIExit.fail(.config, "\(home.path) already holds an identity") }
            let phrase: String
            if let phraseFile {
                guard let text = try? String(contentsOfFile: phraseFile, encoding: .utf8) else {
                    throw CLIExit.fail(.badInput, "cannot read \(phraseFile)")
                }
                phrase = text
            } else {
                if isatty(STDIN_FILENO) == 1 { FileHandle.standardError.write(Data("Seed phrase: ".utf8)) }
                phrase = readLine(strippingNewline: true) ?? ""
            }
            let mnemonic: Mnemonic
            do { mnemonic = try Mnemonic(whisperPhrase: phrase) } catch {
                throw CLIExit.fail(.badInput, "not a valid 12-word seed phrase (\(error))")
            }
            try LockedIdentity(mnemonic: mnemonic, passphrase: Passphrase.read(confirm: true)).save(in: home)
            try register(global)
        }
    }
}

/// Connects once (which registers or logs in) and prints the Whisper ID.
private func register(_ global: GlobalOptions) throws {
    let session = try global.openSession()
    do {
        try session.connect()
    } catch {
        throw CLIExit(error)
    }
    session.disconnect()
    if let id = session.whisperId { EventPrinter.line(id.string) }
}

struct WhoAmI: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Print this identity's Whisper ID.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingExit {
            let home = try global.openHome()
            let account: AccountState
            do { account = try AccountState.load(from: home) } catch { throw CLIExit(error) }
            guard let id = account.whisperId else {
                throw CLIExit.fail(.config, "no registered identity in \(home.path) (run `whisper init` or `whisper recover`)")
            }
            EventPrinter.line(id.string)
        }
    }
}

struct Logout: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End the session on the server (the identity stays).")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try global.connected { try $0.logout() }
    }
}
