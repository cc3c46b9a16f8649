import Foundation
import WhisperClient
import WhisperProtocol

/// `send --file` and the files `listen` saves. The message plaintext of a file is the UTF-8 JSON
/// `{"name":"<file name>"}` (docs/client.md "Attachment messages").
enum AttachmentFiles {
    static func send(_ path: String, to: WhisperID, session: ClientSession) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIExit.fail(.badInput, "cannot read \(path)") }
        let name = (path as NSString).lastPathComponent
        let contentType = contentType(of: name)
        let kind: MessageKind = contentType.hasPrefix("image/") ? .image : contentType.hasPrefix("audio/") ? .voice : .file
        let upload = try session.uploadAttachment([UInt8](data), contentType: contentType)
        var w = JSONWriter()
        w.beginObject()
        w.member("name", name)
        w.endObject()
        return try session.send(w.bytes, msgType: kind, to: to, attachment: upload)
    }

    /// Downloads, decrypts and writes the file; prints `file <messageId> <path>` (or a note on failure).
    static func save(_ message: ReceivedMessage, in folder: String, session: ClientSession) {
        let given = (try? JSONParser.parse(message.plaintext))?["name"]?.stringValue ?? "attachment"
        // Only the last path component of what the sender chose, never a path of theirs.
        let name = (given as NSString).lastPathComponent.replacingOccurrences(of: "/", with: "_")
        let path = (folder as NSString).appendingPathComponent("\(message.messageId)-\(name.isEmpty || name == ".." ? "attachment" : name)")
        do {
            let bytes = try download(message, session: session)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw CLIExit.fail(.other, "cannot write \(path)")
            }
            EventPrinter.line("file \(message.messageId) \(path)")
        } catch {
            EventPrinter.note("cannot fetch the file of \(message.messageId): \(error)")
        }
    }

    /// The relay records the download right just after accepting the message, so the first
    /// ask can race it and get 404 (docs/protocol.md "Attachments"): a few short retries.
    private static func download(_ message: ReceivedMessage, session: ClientSession) throws -> [UInt8] {
        var attempts = 0
        while true {
            switch Result(catching: { () throws(ClientError) in try session.downloadAttachment(of: message) }) {
            case .success(let bytes): return bytes
            case .failure(.server(code: "NOT_FOUND", _, _)) where attempts < 5: Thread.sleep(forTimeInterval: 0.2)
            case .failure(let error): throw error
            }
            attempts += 1
        }
    }

    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "m4a": "audio/mp4"
        case "mp3": "audio/mpeg"
        case "ogg": "audio/ogg"
        case "txt": "text/plain"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }
}
