import ArgumentParser
import Foundation
import WhisperClient
import WhisperProtocol

/// `whisper chat WSP-…`: `listen` and `send` in one session — each line typed on stdin is sent
/// to the contact, everything arriving is printed. (Two `whisper` processes of one identity
/// cannot both stay connected: every login revokes the identity's other session, 4001.)
struct Chat: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Chat with one contact: stdin lines are sent, arrivals printed.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's Whisper ID.") var whisperId: String

    func run() throws {
        try runReportingExit {
            let peer = try parseID(whisperId)
            let session = try global.openSession()
            let lines = LineQueue()
            Thread { lines.readStandardInput() }.start()
            // Stops once stdin has ended and every line was handed to the session while it was
            // connected — not merely when the lines were read: stdin from a file or a pipe can
            // end before the first connect, and those lines must still be sent.
            var handedOver = false
            do {
                try session.run(between: { () throws(ClientError) in
                    let ended = lines.finished
                    while let line = lines.next() {
                        if !line.isEmpty { try session.send(text: line, to: peer) }
                    }
                    handedOver = ended
                }, until: { handedOver })
                // Give the last lines their chance to be accepted before leaving.
                try? session.pump(timeoutMillis: 500)
            } catch {
                throw CLIExit(error)
            }
            session.disconnect()
        }
    }
}

/// Lines read on a thread of their own, taken by the session's thread.
final class LineQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var ended = false

    func readStandardInput() {
        while let line = readLine(strippingNewline: true) { lock.withLock { lines.append(line) } }
        lock.withLock { ended = true }
    }

    func next() -> String? { lock.withLock { lines.isEmpty ? nil : lines.removeFirst() } }
    var isEmpty: Bool { lock.withLock { lines.isEmpty } }
    var finished: Bool { lock.withLock { ended } }
}
