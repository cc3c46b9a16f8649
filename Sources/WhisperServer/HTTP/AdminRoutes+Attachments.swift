import WhisperHTTP
import WhisperServices

extension AdminRoutes {
    /// `POST /admin/attachments/gc/run` → `{deleted}`: one attachment GC run now, audited
    /// (docs/protocol.md "Admin API"). Without an S3 store 503 `ATTACHMENTS_DISABLED`.
    static let attachmentsGC: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            guard let collector = context.attachmentGC else { return respond(AttachmentRoutes.disabled) }
            collector.runByAdmin(clientAddress: request.client.ip) { result in
                answer(result, context, respond) { Array(#"{"deleted":\#($0)}"#.utf8) }
            }
        }
    }
}
