import WhisperHTTP
import WhisperProtocol
import WhisperServices

/// The attachment endpoints of the public listener (docs/protocol.md "Attachments"), each
/// behind `UserAuth`. Without an S3 store configured both answer 503 `ATTACHMENTS_DISABLED`.
enum AttachmentRoutes {
    /// `POST /attachments/presign {contentType, sizeBytes, purpose}` →
    /// `{uploadUrl, objectKey, expiresAt, headers}`; over the kind's cap 413.
    static let presign: RouteTable.Handler = { request, context, respond in
        guard let attachments = context.attachments else { return respond(disabled) }
        UserAuth.session(request, context: context, respond: respond) { session in
            let body: AttachmentPresignPayload
            do throws(PayloadError) {
                body = try AttachmentPresignPayload(body: request.http.body, limits: context.shared.limits)
            } catch {
                if case .tooLarge(field: "sizeBytes", _) = error { return respond(.payloadTooLarge(error.message)) }
                return respond(.failure(.invalidPayload(error), context: context))
            }
            attachments.presign(body, session: session, client: request.client) { result in
                switch result {
                case .success(let upload):
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.member("uploadUrl", upload.uploadURL)
                    writer.member("objectKey", upload.objectKey)
                    writer.member("expiresAt", upload.expiresAtMillis)
                    writer.key("headers")
                    writer.beginObject()
                    for header in upload.headers { writer.member(header.name, header.value) }
                    writer.endObject()
                    writer.endObject()
                    respond(.json(body: writer.bytes))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }

    /// `GET /attachments/{objectKey...}/download` → `{downloadUrl, expiresAt}` for the uploader
    /// and the recipients of a message that carried the key; anyone else 404.
    static let download: RouteTable.Handler = { request, context, respond in
        guard let attachments = context.attachments else { return respond(disabled) }
        UserAuth.session(request, context: context, respond: respond) { session in
            guard let objectKey = request.parameters["objectKey"] else {
                return respond(.failure(.notFound("unknown attachment"), context: context))
            }
            attachments.download(objectKey: objectKey, session: session, client: request.client) { result in
                switch result {
                case .success(let download):
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.member("downloadUrl", download.downloadURL)
                    writer.member("expiresAt", download.expiresAtMillis)
                    writer.endObject()
                    respond(.json(body: writer.bytes))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }

    static var disabled: HTTPResponse {
        .error(status: .serviceUnavailable, code: "ATTACHMENTS_DISABLED",
               message: "attachments are disabled: no S3 store is configured (WHISPER_S3_*)")
    }
}
