import ArgumentParser
import Foundation
import WhisperClient
import WhisperProtocol

func parseID(_ text: String) throws -> WhisperID {
    guard let id = WhisperID.validate(text) else { throw CLIExit.fail(.badInput, "\(text) is not a valid Whisper ID") }
    return id
}

/// `whisper add WSP-…`: looks the contact's keys up and pins them.
struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Look up a contact's keys and pin them.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's Whisper ID.") var whisperId: String

    func run() throws {
        let id = try parseID(whisperId)
        try global.connected { session in
            let keys = try session.addContact(id)
            EventPrinter.line("pinned \(id) \(Base64.encode(keys.signPublicKey))")
        }
    }
}

/// `whisper send WSP-… "text"`: queued in the outbox, sent at once when the server is
/// reachable. Exit 0 once the server accepted it (`sent`), 75 when it stays queued (the next
/// `send` or `listen` delivers it), 76 on a key change.
struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a text message (queued if the server is unreachable).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The recipient's Whisper ID.") var whisperId: String
    @Argument(help: "The text (UTF-8, at most 8,000 bytes).") var text: String?
    @Option(help: "Send this file instead, encrypted, through the relay's attachment store.") var file: String?
    @Option(help: "Also wait up to this many seconds for the delivery receipt.") var waitDelivered: Int?

    func validate() throws {
        guard (text == nil) != (file == nil) else { throw ValidationError("give either a text or --file PATH") }
    }

    func run() throws {
        try runReportingExit {
            let to = try parseID(whisperId)
            let session = try global.openSession()
            var connectError: ClientError?
            do { try session.connect() } catch let error as ClientError {
                if error.isTerminal { throw CLIExit(error) }
                connectError = error
            }
            let messageId: String
            do {
                if let file {
                    guard connectError == nil else { throw connectError ?? ClientError.notConnected }
                    messageId = try AttachmentFiles.send(file, to: to, session: session)
                } else {
                    messageId = try session.send(text: text ?? "", to: to)
                }
            } catch {
                // Offline and the contact not pinned yet: the connection is the reason.
                throw connectError.map { CLIExit($0) } ?? CLIExit(error)
            }
            if let connectError {
                EventPrinter.line("queued \(messageId)")
                throw CLIExit.fail(.queued, "queued for later: \(connectError)")
            }
            let deadline = Date().addingTimeInterval(Double(waitDelivered ?? 0))
            func state() -> OutboxEntry.State? { session.outbox.entry(messageId)?.state }
            while waitDelivered != nil, state() == .sent, Date() < deadline {
                do { try session.pump(timeoutMillis: 200) } catch { break }
            }
            session.disconnect()
            switch state() {
            case .sent?, .delivered?, .read?: break
            case .failed?: throw CLIExit.fail(.other, "the server refused the message")
            default:
                EventPrinter.line("queued \(messageId)")
                throw CLIExit.fail(.queued, "queued for later")
            }
            if waitDelivered != nil, state() != .delivered, state() != .read { throw CLIExit.fail(.queued, "sent, not yet delivered") }
        }
    }
}

/// `whisper listen`: stays connected (reconnecting with backoff), printing messages, receipts
/// and other events as they come, until `--count` messages or `--seconds` have passed.
struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print incoming messages, receipts and events as they arrive.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Stop after this many messages.") var count: Int?
    @Option(help: "Stop after this many seconds.") var seconds: Int?
    @Option(help: "Folder for received files (default: <home>/files).") var files: String?

    func run() throws {
        try runReportingExit {
            let session = try global.openSession()
            var received = 0
            let folder = files ?? session.home.path + "/files"
            session.onEvent = { event in
                EventPrinter.print(event)
                guard case .message(let message) = event else { return }
                received += 1
                if message.attachment != nil { AttachmentFiles.save(message, in: folder, session: session) }
            }
            let deadline = seconds.map { Date().addingTimeInterval(Double($0)) }
            do {
                try session.run {
                    if let count, received >= count { return true }
                    if let deadline, Date() >= deadline { return true }
                    return false
                }
            } catch {
                throw CLIExit(error)
            }
            session.disconnect()
        }
    }
}

/// `whisper outbox`: every envelope this identity sent and its state.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "outbox", abstract: "List sent messages and their states.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingExit {
            let session = try global.openSession()
            for entry in session.outbox.entries {
                EventPrinter.line("\(entry.state.rawValue) \(entry.messageId) \(entry.to) attempts=\(entry.attempts)")
            }
        }
    }
}
