import Foundation
import WhisperProtocol

/// The shared fixture files under `Tests/Fixtures` (also read by the Python interop tests).
public enum TestFixtures {
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures")

    public static func json(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestSocket.Failure.io("\(name) is not a JSON object")
        }
        return object
    }

    /// One Ed25519 vector of `ed25519-vectors.json` (hex fields decoded).
    public struct Ed25519Vector {
        public let name: String
        public let seed: [UInt8]
        public let publicKey: [UInt8]
        public let message: [UInt8]
        public let signature: [UInt8]
        public let encPublicKey: [UInt8]
    }

    public static func ed25519RFC8032() throws -> [Ed25519Vector] {
        guard let entries = try json("ed25519-vectors.json")["rfc8032"] as? [[String: Any]] else {
            throw TestSocket.Failure.io("no rfc8032 vectors")
        }
        return try entries.map { try vector($0, messageKey: "message") }
    }

    /// The registration vector: the signature is over `challenge`.
    public static func ed25519Registration() throws -> Ed25519Vector {
        guard let entry = try json("ed25519-vectors.json")["registration"] as? [String: Any] else {
            throw TestSocket.Failure.io("no registration vector")
        }
        return try vector(entry, messageKey: "challenge")
    }

    private static func vector(_ entry: [String: Any], messageKey: String) throws -> Ed25519Vector {
        func hex(_ key: String) throws -> [UInt8] {
            guard let text = entry[key] as? String, let bytes = Hex.decode(text) else {
                throw TestSocket.Failure.io("fixture field \(key) missing or not hex")
            }
            return bytes
        }
        return Ed25519Vector(name: entry["name"] as? String ?? "", seed: try hex("seed"), publicKey: try hex("publicKey"),
                             message: try hex(messageKey), signature: try hex("signature"),
                             encPublicKey: (entry["encPublicKey"] as? String).flatMap(Hex.decode) ?? [])
    }
}
