import WhisperHTTP
import WhisperProtocol

/// libFuzzer target `url`: percent-decoding (query and path parameters, configuration URLs), the
/// query-string parser with the admin list query on top, and the SigV4 encoding and canonical
/// request that presigned attachment URLs are built from (docs/protocol.md "Attachments").
///
/// Invariants: no crash or hang; `isWellFormed` agrees with `decodeBytes`; decoded output is never
/// longer than its input; SigV4's URI encoding is unreserved ASCII only and percent-decodes back
/// to its input (decode(encode(x)) == x); a signature is 64 lower-case hex digits.
@_cdecl("LLVMFuzzerTestOneInput")
public func urlFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let decoded = PercentDecoding.decodeBytes(bytes)
    let wellFormed = bytes.withUnsafeBytes { PercentDecoding.isWellFormed($0) }
    precondition(wellFormed == (decoded != nil), "isWellFormed disagrees with decodeBytes")
    if let decoded { precondition(decoded.count <= bytes.count, "decoding grew the input") }
    _ = PercentDecoding.decode(bytes)

    let text = String(decoding: bytes, as: UTF8.self)
    _ = PercentDecoding.decode(text)
    if let query = HTTPQueryParameters(parsing: text) {
        let items = query.items.map { (name: $0.name, value: $0.value) }
        _ = try? AdminPageQuery(items: items, allowed: Set(items.map(\.name)), limits: .default)
        URLFuzzSupport.sign(query: items)
    }
    for keepSlash in [false, true] {
        let encoded = SigV4.uriEncode(text, keepSlash: keepSlash)
        precondition(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: " ") }, "SigV4 encoding left a raw byte")
        precondition(PercentDecoding.decode(encoded) == text, "decode(uriEncode(x)) != x")
    }
    return 0
}

enum URLFuzzSupport {
    static let signer = SigV4(accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                              region: "us-east-1", service: "s3")

    /// A presign-shaped request whose query and header values come from the input.
    static func sign(query: [(name: String, value: String)]) {
        let headers = query.prefix(4).map { (name: "x-amz-meta-" + SigV4.uriEncode($0.name, keepSlash: false), value: $0.value) }
        let request = SigV4.Request(method: "PUT", canonicalURI: "/bucket/object", query: query,
                                    headers: [(name: "host", value: "s3.example")] + headers, payloadHash: SigV4.unsignedPayload)
        let time = SigV4.Timestamp(epochSeconds: 1_369_353_600)
        let signature = signer.signature(request, at: time)
        precondition(signature.utf8.count == 64 && signature.utf8.allSatisfy { Hex.value(ofDigit: $0) != nil },
                     "a signature that is not 64 hex digits")
    }
}
