import Foundation
import WhisperProtocol

/// The folder a client keeps its state in (the CLI's `--home`, default `~/.whisper`): created
/// 0700, every file written atomically (temporary file + rename) and 0600. Files hold JSON
/// written with WhisperProtocol's writer and read with its parser.
public struct ClientHome: Sendable {
    /// JSON state files may be this large (an outbox of thousands of envelopes).
    static let jsonLimits = JSONLimits(maxInputBytes: 64 * 1024 * 1024, maxStringBytes: 1_000_000,
                                       maxArrayElements: 1_000_000, maxObjectMembers: 1_000_000)
    public let path: String

    public init(path: String) throws(ClientError) {
        self.path = path
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage("cannot create \(path)")
        }
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    func read(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: file(name)).map { [UInt8]($0) }
    }

    /// The parsed file, nil when it does not exist.
    func readJSON(_ name: String) throws(ClientError) -> JSONValue? {
        guard let bytes = read(name) else { return nil }
        do {
            return try JSONParser.parse(bytes, limits: Self.jsonLimits)
        } catch {
            throw .storage("\(name) is not valid JSON")
        }
    }

    func write(_ name: String, _ bytes: [UInt8]) throws(ClientError) {
        let url = URL(fileURLWithPath: file(name))
        do {
            try Data(bytes).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw .storage("cannot write \(name)")
        }
    }

    /// Appends one line (a JSON record) to `name`, creating it 0600.
    func appendLine(_ name: String, _ bytes: [UInt8]) throws(ClientError) {
        let path = file(name)
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw .storage("cannot create \(name)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw .storage("cannot open \(name)") }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(bytes + [10]))
            try handle.synchronize()
        } catch {
            throw .storage("cannot append to \(name)")
        }
    }

    func remove(_ name: String) {
        try? FileManager.default.removeItem(atPath: file(name))
    }
}
