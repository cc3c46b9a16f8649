/// PEM certificate chain and private key for both listeners (`WHISPER_TLS_CERT`,
/// `WHISPER_TLS_KEY`, both or neither). Only the paths are configuration; the runtime reads the
/// files at start-up and fails there if they are unreadable.
public struct TLSFiles: Sendable, Equatable {
    public var certificatePath: String
    public var keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    static func load(from environment: EnvironmentReader) throws(ConfigError) -> TLSFiles? {
        let cert = environment.raw("WHISPER_TLS_CERT")
        let key = environment.raw("WHISPER_TLS_KEY")
        switch (cert, key) {
        case (nil, nil):
            return nil
        case (let cert?, let key?):
            return TLSFiles(certificatePath: cert, keyPath: key)
        case (nil, _):
            throw .missing(variable: "WHISPER_TLS_CERT", reason: "required when WHISPER_TLS_KEY is set")
        case (_, nil):
            throw .missing(variable: "WHISPER_TLS_KEY", reason: "required when WHISPER_TLS_CERT is set")
        }
    }
}
