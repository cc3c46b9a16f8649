import WhisperProtocol

/// A file encrypted and uploaded once (spec §6.2); each recipient's envelope boxes its key.
public struct UploadedAttachment: Sendable {
    public let objectKey: String
    public let contentType: String
    public let encrypted: EncryptedAttachment

    func pointer(boxedBy identity: ClientIdentity, to recipientEncPublicKey: [UInt8]) throws(ClientCryptoError) -> AttachmentPointerFields {
        AttachmentPointerFields(objectKey: objectKey, contentType: contentType, attachment: encrypted,
                                fileKeyBox: try identity.boxFileKey(encrypted.fileKey, recipientEncPublicKey: recipientEncPublicKey))
    }
}

extension ClientSession {
    /// Encrypts `bytes` under a fresh file key, asks for a presigned URL and PUTs the ciphertext
    /// to the store (docs/protocol.md "Attachments"). Send it with `send(_:msgType:to:attachment:)`.
    public func uploadAttachment(_ bytes: [UInt8], contentType: String) throws(ClientError) -> UploadedAttachment {
        let encrypted: EncryptedAttachment
        do { encrypted = try EncryptedAttachment(encrypting: bytes) } catch { throw .protocolViolation("\(error)") }
        var w = JSONWriter()
        w.beginObject()
        w.member("contentType", contentType)
        w.member("sizeBytes", Int64(encrypted.ciphertext.count))
        w.member("purpose", "message_attachment")
        w.endObject()
        let presign = try userRequest("POST", "/attachments/presign", body: w.bytes)
        guard let uploadUrl = presign["uploadUrl"]?.stringValue, let objectKey = presign["objectKey"]?.stringValue else {
            throw .protocolViolation("presign without uploadUrl/objectKey")
        }
        // Exactly the signed headers; Content-Length is written by the transport from the body.
        var headers: [(String, String)] = []
        if case .object(let given)? = presign["headers"] {
            for (name, value) in given where name.lowercased() != "content-length" {
                if let value = value.stringValue { headers.append((name, value)) }
            }
        }
        let put = try http(HTTPRequest(method: "PUT", url: uploadUrl, headers: headers, body: encrypted.ciphertext))
        guard (200..<300).contains(put.status) else {
            throw .server(code: "UPLOAD_FAILED", message: "the store answered \(put.status)", retryAfterMillis: nil)
        }
        return UploadedAttachment(objectKey: objectKey, contentType: contentType, encrypted: encrypted)
    }

    /// The file of a received message: the download URL from the relay, the ciphertext from the
    /// store, the key from this recipient's `fileKeyBox` (spec §6.4).
    public func downloadAttachment(of message: ReceivedMessage) throws(ClientError) -> [UInt8] {
        guard let json = message.attachment, let pointer = AttachmentPointerFields(json: json) else {
            throw .protocolViolation("the message has no attachment")
        }
        let keys = try contactKeys(message.from)
        let link = try userRequest("GET", "/attachments/\(pointer.objectKey)/download")
        guard let url = link["downloadUrl"]?.stringValue else { throw .protocolViolation("download without downloadUrl") }
        let response = try http(HTTPRequest(method: "GET", url: url))
        guard response.status == 200 else {
            throw .server(code: "DOWNLOAD_FAILED", message: "the store answered \(response.status)", retryAfterMillis: nil)
        }
        do {
            let fileKey = try identity.openFileKeyBox(pointer.fileKeyBox, senderEncPublicKey: keys.encPublicKey)
            return try EncryptedAttachment.decrypt(response.body, fileKey: fileKey, fileNonce: pointer.fileNonce)
        } catch {
            throw .protocolViolation("the attachment does not decrypt: \(error)")
        }
    }

    /// A relay user endpoint with the session token; the JSON body of a 2xx, else `.server`
    /// with the endpoint's error code.
    func userRequest(_ method: String, _ path: String, body: [UInt8] = []) throws(ClientError) -> JSONValue {
        guard let token = account.sessionToken else { throw .notConnected }
        var headers = [("Authorization", "Bearer \(token)")]
        if !body.isEmpty { headers.append(("Content-Type", "application/json")) }
        let response = try http(HTTPRequest(method: method, url: transport.httpBase + path, headers: headers, body: body))
        guard (200..<300).contains(response.status), let json = try? JSONParser.parse(response.body) else {
            throw Self.httpError(response)
        }
        return json
    }

    /// An HTTP error body (`{"error":{"code","message"}}`, docs/protocol.md "HTTP") as `.server`.
    static func httpError(_ response: HTTPResponse) -> ClientError {
        let error = (try? JSONParser.parse(response.body))?["error"]
        return .server(code: error?["code"]?.stringValue ?? "HTTP \(response.status)", message: error?["message"]?.stringValue ?? "",
                       retryAfterMillis: nil)
    }

    func http(_ request: HTTPRequest) throws(ClientError) -> HTTPResponse {
        do { return try transport.http(request) } catch { throw .transport(error.description) }
    }
}
