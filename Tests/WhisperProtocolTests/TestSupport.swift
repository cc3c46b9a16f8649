@testable import WhisperProtocol

func utf8Bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func parseJSON(_ text: String, limits: JSONLimits = .frame) throws(JSONError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), limits: limits)
}

/// The error a parse throws, or `nil` if it succeeds.
func jsonError(_ bytes: [UInt8], limits: JSONLimits = .frame) -> JSONError? {
    do {
        _ = try JSONParser.parse(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

func jsonError(_ text: String, limits: JSONLimits = .frame) -> JSONError? {
    jsonError(Array(text.utf8), limits: limits)
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func frameError(_ text: String, limits: Limits = .default) -> FrameError? {
    do {
        _ = try InboundFrame.parse(Array(text.utf8), limits: limits)
        return nil
    } catch {
        return error
    }
}
