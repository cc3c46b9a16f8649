import Foundation
import WhisperProtocol

/// `Tests/Fixtures/client-vectors.json`, shared with the server's tests (ClientVectorsTests in
/// WhisperServicesTests) and recorded by an independent implementation (see its description).
struct ClientVectors {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let root: [String: Any]

    init() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/client-vectors.json")
        guard let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw Failure(description: "client-vectors.json is not an object")
        }
        self.root = root
    }

    func section(_ name: String) throws -> Section {
        guard let fields = root[name] as? [String: Any] else { throw Failure(description: "no section \(name)") }
        return Section(name: name, fields: fields)
    }

    struct Section {
        let name: String
        let fields: [String: Any]

        func string(_ key: String) throws -> String {
            guard let value = fields[key] as? String else { throw Failure(description: "\(name).\(key) missing") }
            return value
        }

        func hex(_ key: String) throws -> [UInt8] {
            guard let bytes = Hex.decode(try string(key)) else { throw Failure(description: "\(name).\(key) not hex") }
            return bytes
        }

        func base64(_ key: String) throws -> [UInt8] {
            guard let bytes = Base64.decode(try string(key)) else { throw Failure(description: "\(name).\(key) not base64") }
            return bytes
        }

        func utf8(_ key: String) throws -> [UInt8] { Array(try string(key).utf8) }

        func int(_ key: String) throws -> Int64 {
            guard let value = fields[key] as? NSNumber else { throw Failure(description: "\(name).\(key) missing") }
            return value.int64Value
        }

        func whisperID(_ key: String) throws -> WhisperID {
            guard let id = WhisperID.validate(try string(key)) else { throw Failure(description: "\(name).\(key) not an id") }
            return id
        }

        func array(_ key: String) throws -> [Any] {
            guard let value = fields[key] as? [Any] else { throw Failure(description: "\(name).\(key) missing") }
            return value
        }

        func section(_ key: String) throws -> Section {
            guard let value = fields[key] as? [String: Any] else { throw Failure(description: "\(name).\(key) missing") }
            return Section(name: "\(name).\(key)", fields: value)
        }
    }
}
