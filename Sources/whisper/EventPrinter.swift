import Foundation
import WhisperClient
import WhisperProtocol

/// One line per event on stdout, flushed at once, first word the kind, so scripts can read it:
///
///     message <messageId> <from> <text>
///     sent <messageId>
///     delivered <messageId> <by>
///     failed <messageId> <reason>
///     key-changed <whisperId>
///     rejected <messageId> <from>
///     event <type> <payload JSON>
///     connected <whisperId>           (stderr, like disconnects)
enum EventPrinter {
    static func print(_ event: ClientEvent) {
        switch event {
        case .message(let message):
            let text = message.msgType == .text ? message.text.replacingOccurrences(of: "\n", with: "\\n") : "[\(message.msgType.rawValue)]"
            line("message \(message.messageId) \(message.from) \(text)")
        case .sent(let id): line("sent \(id)")
        case .delivered(let id, let by): line("delivered \(id) \(by)")
        case .failed(let id, let reason): line("failed \(id) \(reason)")
        case .keyChanged(let id): line("key-changed \(id)")
        case .rejected(let id, let from): line("rejected \(id) \(from)")
        case .notification(let type, let payload):
            var w = JSONWriter()
            try? w.value(payload)
            line("event \(type) \(String(decoding: w.bytes, as: UTF8.self))")
        case .connected(let id): note("connected as \(id)")
        case .disconnected(let error): note("disconnected: \(error)")
        }
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data(("whisper: " + text + "\n").utf8))
    }
}
