import WhisperHTTP
import WhisperProtocol
import WhisperServices

extension AdminRoutes {
    /// `POST /admin/attachments/gc/run` (no body, or `{}`) → `{deleted}`: one attachment GC run
    /// now, audited (docs/protocol.md "Admin API"). Without an S3 store 503 `ATTACHMENTS_DISABLED`.
    static let attachmentsGC: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            do throws(PayloadError) {
                _ = try EmptyPayload(body: request.http.body)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            guard let collector = context.attachmentGC else { return respond(AttachmentRoutes.disabled) }
            collector.runByAdmin(clientAddress: request.client.ip) { result in
                answer(result, context, respond) { Array(#"{"deleted":\#($0)}"#.utf8) }
            }
        }
    }
}
