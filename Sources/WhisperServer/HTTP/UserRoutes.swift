import WhisperHTTP
import WhisperProtocol
import WhisperServices

/// The user endpoints of the public listener (docs/protocol.md "HTTP"), each behind `UserAuth`.
enum UserRoutes {
    /// `GET /users/{whisperId}/keys` → `{whisperId, encPublicKey, signPublicKey, status}`.
    /// A malformed id or a bad checksum is 400 `INVALID_PAYLOAD`, an unknown one 404.
    static let keys: RouteTable.Handler = { request, context, respond in
        UserAuth.session(request, context: context, respond: respond) { _ in
            guard let text = request.parameters["whisperId"], let whisperId = WhisperID.validate(text) else {
                return respond(.failure(.invalidPayload(.invalidValue(field: "whisperId")), context: context))
            }
            context.keys.lookup(whisperId) { result in
                switch result {
                case .success(let entry):
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.member("whisperId", entry.whisperId.string)
                    writer.member("encPublicKey", Base64.encode(entry.keys.encPublicKey))
                    writer.member("signPublicKey", Base64.encode(entry.keys.signPublicKey))
                    writer.member("status", entry.isBanned ? "banned" : "active")
                    writer.endObject()
                    respond(.json(body: writer.bytes))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }

    // MARK: Contacts backup (docs/protocol.md "Contacts backup")

    /// `PUT /backup/contacts {nonce, ciphertext, cryptoVersion, protocolVersion}` →
    /// `{success: true, updatedAt}`. A blob over the cap is 413 (from `Content-Length` before
    /// the body is read, or from its decoded size).
    static let uploadContactsBackup: RouteTable.Handler = { request, context, respond in
        UserAuth.session(request, context: context, respond: respond) { session in
            let backup: ContactsBackupPayload
            do throws(PayloadError) {
                backup = try ContactsBackupPayload(body: request.http.body, limits: context.shared.limits)
            } catch {
                if case .tooLarge = error { return respond(.payloadTooLarge(error.message)) }
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.contactsBackup.upload(backup, session: session, client: request.client) { result in
                switch result {
                case .success(let updatedAt):
                    respond(.json(body: Array(#"{"success":true,"updatedAt":\#(updatedAt)}"#.utf8)))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }

    /// `GET /backup/contacts` → `{nonce, ciphertext, updatedAt}` (rendered off the loop, by the
    /// store), or 404 when there is none.
    static let downloadContactsBackup: RouteTable.Handler = { request, context, respond in
        UserAuth.session(request, context: context, respond: respond) { session in
            context.contactsBackup.download(session: session, client: request.client) { result in
                switch result {
                case .success(let backup):
                    respond(.json(body: backup.json))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }

    /// `DELETE /backup/contacts` → 204, or 404 when there is none.
    static let deleteContactsBackup: RouteTable.Handler = { request, context, respond in
        UserAuth.session(request, context: context, respond: respond) { session in
            context.contactsBackup.delete(session: session, client: request.client) { result in
                switch result {
                case .success: respond(HTTPResponse(status: HTTPStatus(code: 204)))
                case .failure(let error): respond(.failure(error, context: context))
                }
            }
        }
    }

    // MARK: Reports (docs/protocol.md "POST /reports")

    /// `POST /reports {whisperId, reason, details?, messageId?}` → 201 `{id, verified}`.
    static let fileReport: RouteTable.Handler = { request, context, respond in
        UserAuth.session(request, context: context, respond: respond) { session in
            let report: ReportPayload
            do throws(PayloadError) {
                report = try ReportPayload(body: request.http.body, limits: context.shared.limits)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.reports.file(report, session: session, client: request.client) { result in
                switch result {
                case .success(let filed):
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.member("id", String(filed.id))
                    writer.member("verified", filed.verified)
                    writer.endObject()
                    respond(.json(status: .created, body: writer.bytes))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }
}
