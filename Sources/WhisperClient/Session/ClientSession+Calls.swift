import Foundation
import WhisperProtocol

/// Call signalling (spec §9, docs/protocol.md "Calls"): the four signed frames, the callee's
/// confirmation, TURN credentials. Each blob (SDP, ICE candidate, hang-up note) is boxed to the
/// peer like a message and signed with the frame type, the `callId` in the id position and the
/// peer as `toOrGroupId` (docs/client.md section 3). The signals have no success reply: a
/// refusal comes later as `ClientEvent.refused`. Media is the app's.
extension ClientSession {
    static let offersKept = 64

    /// `call_initiate`: offers a call to `peer` (the SDP offer boxed); returns the new `callId`.
    /// The callee's app confirming it shows up as `ClientEvent.callRinging`.
    @discardableResult
    public func startCall(to peer: WhisperID, isVideo: Bool, offer: [UInt8]) throws(ClientError) -> String {
        let callId = UUID().uuidString.lowercased()
        try signalCall(.initiate, callId: callId, to: peer, isVideo: isVideo, blob: offer)
        return callId
    }

    /// `call_answer` from the callee, with its SDP answer.
    public func answerCall(_ callId: String, caller: WhisperID, answer: [UInt8]) throws(ClientError) {
        try signalCall(.answer, callId: callId, to: caller, isVideo: nil, blob: answer)
    }

    /// `call_ice_candidate`: one trickled candidate, either way.
    public func sendIceCandidate(_ candidate: [UInt8], callId: String, to peer: WhisperID) throws(ClientError) {
        try signalCall(.iceCandidate, callId: callId, to: peer, isVideo: nil, blob: candidate)
    }

    /// `call_end`: hang up, reject (callee, ringing) or cancel (caller, ringing); `note` is
    /// whatever the app wants the peer to read (a reason), boxed like the rest.
    public func endCall(_ callId: String, peer: WhisperID, note: [UInt8] = []) throws(ClientError) {
        try signalCall(.end, callId: callId, to: peer, isVideo: nil, blob: note)
    }

    /// `call_received` → `call_confirmed`: the offer reached this app (the session sends it for
    /// every offer it receives; repeating it is harmless).
    public func confirmCall(_ callId: String) throws(ClientError) {
        guard let token = account.sessionToken else { throw .notConnected }
        _ = try expect("call_confirmed", request {
            ClientFrames.privileged("call_received", requestId: $0, token: token) { w in w.member("callId", callId) }
        })
    }

    /// `get_turn_credentials` → `turn_credentials`.
    public func turnCredentials() throws(ClientError) -> TurnCredentials {
        guard let token = account.sessionToken else { throw .notConnected }
        let payload = try expect("turn_credentials", request { ClientFrames.bare("get_turn_credentials", requestId: $0, token: token) })
        guard let urls = payload["urls"]?.arrayValue?.compactMap(\.stringValue), let username = payload["username"]?.stringValue,
              let credential = payload["credential"]?.stringValue, let ttl = payload["ttl"]?.int64Value
        else { throw .protocolViolation("turn_credentials without urls, username, credential or ttl") }
        return TurnCredentials(urls: urls, username: username, credential: credential, ttlSeconds: ttl)
    }

    private func signalCall(_ kind: CallSignalKind, callId: String, to peer: WhisperID, isVideo: Bool?,
                            blob: [UInt8]) throws(ClientError) {
        guard let token = account.sessionToken, let me = account.whisperId else { throw .notConnected }
        let keys = try contactKeys(peer)
        let envelope: SealedEnvelope
        do {
            envelope = try identity.seal(blob, kind: .call(kind), id: callId, from: me, to: peer, timestampMillis: clock(),
                                         recipientEncPublicKey: keys.encPublicKey)
        } catch {
            throw .protocolViolation("cannot seal: \(error)")
        }
        try sendUnanswered(kind.rawValue) {
            ClientFrames.callSignal(envelope, kind: kind, isVideo: isVideo, requestId: $0, token: token)
        }
    }

    /// A call frame from the server: `call_ringing`, the server's own `call_end {callId, reason}`,
    /// or the peer's signal, verified with its pinned keys and then opened (an empty blob is
    /// allowed unencrypted). A signal that does not verify or open is `.rejected`.
    func receiveCallSignal(_ type: String, _ payload: JSONValue) throws(ClientError) {
        guard let callId = payload["callId"]?.stringValue else { throw .protocolViolation("\(type) without callId") }
        if type == "call_ringing" { return onEvent(.callRinging(callId: callId)) }
        if let reason = payload["reason"]?.stringValue { return onEvent(.callEnded(callId: callId, reason: reason)) }
        guard let kind = CallSignalKind(rawValue: type),
              let from = payload["from"]?.stringValue.flatMap(WhisperID.validate),
              let to = payload["to"]?.stringValue.flatMap(WhisperID.validate),
              let timestamp = payload["timestamp"]?.int64Value,
              let nonce = payload["nonce"]?.stringValue.flatMap(Base64.decode),
              let ciphertext = payload["ciphertext"]?.stringValue.flatMap(Base64.decode),
              let signature = payload["sig"]?.stringValue.flatMap(Base64.decode)
        else { throw .protocolViolation("malformed \(type)") }
        let envelope = SealedEnvelope(kind: .call(kind), id: callId, from: from, to: to, timestampMillis: timestamp,
                                      nonce: nonce, ciphertext: ciphertext, signature: signature)
        let keys: ContactKeys
        do {
            keys = try contactKeys(from)
        } catch .unknownContact {
            return onEvent(.rejected(messageId: callId, from: from))
        }
        guard envelope.hasValidSignature(signPublicKey: keys.signPublicKey) else { return onEvent(.rejected(messageId: callId, from: from)) }
        var plaintext: [UInt8] = []
        if !ciphertext.isEmpty {
            do {
                plaintext = try identity.open(envelope, senderSignPublicKey: keys.signPublicKey, senderEncPublicKey: keys.encPublicKey)
            } catch {
                return onEvent(.rejected(messageId: callId, from: from))
            }
        }
        if kind == .initiate {
            // Confirmed before the app shows it (docs/protocol.md "Confirming an offer"), every
            // time: a repeat after a reconnect must ring the caller too.
            do { try confirmCall(callId) } catch .server(let code, let message, let retryAfter) {
                onEvent(.refused(frame: "call_received", error: .server(code: code, message: message, retryAfterMillis: retryAfter)))
            }
            let key = callId.lowercased()
            guard !offersSeen.contains(key) else { return }
            offersSeen.append(key)
            if offersSeen.count > Self.offersKept { offersSeen.removeFirst() }
        }
        onEvent(.call(CallSignal(kind: kind, callId: callId, from: from, isVideo: payload[CallSignalPayload.isVideoKey]?.boolValue,
                                 timestamp: timestamp, plaintext: plaintext)))
    }
}
