import ArgumentParser

/// `whisper`: a command-line Whisper client on WhisperClient (docs/client.md "The whisper CLI").
/// State lives in one folder (`--home`); the seed is encrypted there with a passphrase
/// (`WHISPER_PASSPHRASE`, or asked on the terminal). Exit codes are listed in `CLIExit`.
@main
struct WhisperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whisper",
        abstract: "Talk through a Whisper relay from the command line.",
        discussion: """
            Exit codes: 0 ok, 64 usage, 65 bad input (phrase, id), 69 server unreachable, \
            75 queued but not sent yet, 76 a contact's keys changed, 77 refused (wrong passphrase, \
            AUTH_FAILED, banned, replaced by another device), 78 no identity / already initialised, 1 other.
            """,
        subcommands: [Init.self, Recover.self, WhoAmI.self, Add.self, Send.self, Listen.self, Chat.self, GroupCommand.self,
                      BackupCommand.self, OutboxCommand.self, Logout.self]
    )
}
