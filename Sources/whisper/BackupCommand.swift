import ArgumentParser
import WhisperClient

/// `whisper backup push|pull`: the encrypted contacts backup (spec §14.1).
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Encrypted contacts backup on the relay.", subcommands: [Push.self, Pull.self])

    static func run(_ global: GlobalOptions, _ body: (ClientSession) throws -> String) throws {
        try global.connected { EventPrinter.line(try body($0)) }
    }

    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Upload the pinned contacts, encrypted.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try BackupCommand.run(global) { "backed-up \(try $0.backUpContacts())" }
        }
    }

    struct Pull: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Restore and pin the contacts of the backup.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try BackupCommand.run(global) { session in
                try session.restoreContacts().map { "contact \($0)" }.joined(separator: "\n")
            }
        }
    }
}
