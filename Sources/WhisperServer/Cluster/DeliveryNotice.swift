import WhisperProtocol
import WhisperServices

/// A frame routed to a socket on another node, as the message scripts publish it on
/// `deliver:{node}`:
///
///     <node>:<loop>:<connection> <whisperId> <kind m|e> <received-at µs>\n<frame bytes>
struct DeliveryNotice {
    let route: LiveRoute
    let user: WhisperID
    let kind: DeliveryKind
    let receivedAtMicros: Int64
    let frame: [UInt8]

    static func decode(_ bytes: [UInt8]) -> DeliveryNotice? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard header.count == 4, let route = LiveRoute(text: String(header[0])),
              let user = WhisperID.validate(String(header[1])), let kind = DeliveryKind(rawValue: String(header[2])),
              let micros = Int64(header[3])
        else { return nil }
        return DeliveryNotice(route: route, user: user, kind: kind, receivedAtMicros: micros,
                              frame: Array(bytes[(newline + 1)...]))
    }
}
