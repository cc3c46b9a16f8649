/// permessage-deflate as agreed in the handshake response (RFC 7692 §7.1), mapped onto the
/// shared zlib wrappers. Those are written from the server's side, so the client's view is
/// mirrored: our compressor follows the `client_*` parameters, our decompressor the
/// `server_*` ones.
public struct NegotiatedDeflate: Equatable, Sendable {
    /// For compressing what we send.
    public var outgoing: DeflateParameters
    /// For inflating what the server sends.
    public var incoming: DeflateParameters

    /// The value we offer: we accept any window the server picks for us, and let it keep context.
    public static let offer = "permessage-deflate; client_max_window_bits"

    /// Reads the server's accepted parameters; nil when they are not a valid agreement.
    public init?(response: WebSocketExtensionOffer) {
        var clientNoContextTakeover = false, serverNoContextTakeover = false
        var clientWindow = 15
        for parameter in response.parameters {
            switch parameter.name.lowercased() {
            case "server_no_context_takeover": serverNoContextTakeover = true
            case "client_no_context_takeover": clientNoContextTakeover = true
            case "server_max_window_bits":
                // Our inflater always uses a 32 KiB window, which reads any smaller one.
                guard let bits = parameter.value.flatMap({ Int($0) }), (8...15).contains(bits) else { return nil }
            case "client_max_window_bits":
                guard let bits = parameter.value.flatMap({ Int($0) }), (8...15).contains(bits) else { return nil }
                clientWindow = bits
            default:
                return nil
            }
        }
        outgoing = DeflateParameters(serverNoContextTakeover: clientNoContextTakeover, serverMaxWindowBits: clientWindow)
        incoming = DeflateParameters(clientNoContextTakeover: serverNoContextTakeover)
    }
}
