import Foundation
import WhisperClient
import WhisperProtocol

/// One line per event on stdout, flushed at once, first word the kind, so scripts can read it:
///
///     message <messageId> <from> <text>
///     sent <messageId>
///     delivered <messageId> <by>
///     read <messageId> <by>
///     typing <from> on|off
///     presence <whisperId> online|offline
///     call <call_initiate|call_answer|call_ice_candidate|call_end> <callId> <from> [video|audio]
///     call-ringing <callId>
///     call-ended <callId> <reason>
///     refused <frame type> <error>
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
        case .read(let id, let by): line("read \(id) \(by)")
        case .typing(let from, let isTyping): line("typing \(from) \(isTyping ? "on" : "off")")
        case .presence(let id, let online, _): line("presence \(id) \(online ? "online" : "offline")")
        case .call(let signal):
            line("call \(signal.kind.rawValue) \(signal.callId) \(signal.from)" + (signal.isVideo.map { $0 ? " video" : " audio" } ?? ""))
        case .callRinging(let id): line("call-ringing \(id)")
        case .callEnded(let id, let reason): line("call-ended \(id) \(reason)")
        case .refused(let frame, let error): line("refused \(frame) \(error)")
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
