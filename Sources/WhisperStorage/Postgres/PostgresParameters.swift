#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A statement's parameters as libpq takes them: text-format C strings (nil for SQL NULL)
/// and type OIDs, freed when this goes away. libpq copies them into its output buffer when
/// the statement is sent, so they need to live only for that call.
struct PostgresParameters: ~Copyable {
    let types: [UInt32]
    private let values: [UnsafePointer<CChar>?]

    init(_ parameters: [PostgresValue?]) throws(PostgresError) {
        guard parameters.count <= Int(Int32.max) else {
            throw .queryFailed(sqlState: "54023", message: "too many parameters")
        }
        var values: [UnsafePointer<CChar>?] = []
        values.reserveCapacity(parameters.count)
        for parameter in parameters {
            guard let parameter else {
                values.append(nil)
                continue
            }
            let text = parameter.textEncoding
            // libpq text parameters are C strings: an embedded NUL would silently truncate.
            guard !text.utf8.contains(0) else {
                Self.free(values)
                throw .queryFailed(sqlState: "22021", message: "parameter contains a NUL character")
            }
            guard let copy = strdup(text) else {
                Self.free(values)
                throw .queryFailed(sqlState: "53200", message: "out of memory")
            }
            values.append(UnsafePointer(copy))
        }
        self.values = values
        types = parameters.map { $0?.typeOID ?? 0 }
    }

    deinit {
        Self.free(values)
    }

    var count: Int32 { Int32(truncatingIfNeeded: values.count) }

    func withValues<R>(_ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        values.withUnsafeBufferPointer { body(count, $0.baseAddress) }
    }

    func withTypesAndValues<R>(_ body: (Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        types.withUnsafeBufferPointer { typePointer in
            values.withUnsafeBufferPointer { body(count, typePointer.baseAddress, $0.baseAddress) }
        }
    }

    private static func free(_ values: [UnsafePointer<CChar>?]) {
        for value in values { Glibc.free(UnsafeMutablePointer(mutating: value)) }
    }
}
