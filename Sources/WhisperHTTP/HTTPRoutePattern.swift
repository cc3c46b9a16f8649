/// A compiled route pattern: `/users/{whisperId}/keys`, or with one greedy parameter that spans
/// one or more segments, `/attachments/{objectKey...}/download`.
///
/// Literal segments compare byte-for-byte with the raw (still percent-encoded) request segment.
/// Trailing slashes are significant: `/health/` does not match `/health` (no redirect, 404), and an
/// empty segment (`//`) never matches.
struct HTTPRoutePattern: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case greedy(String)
    }

    let text: String
    let segments: [Segment]
    /// Position of the `{name...}` segment, if any.
    let greedyIndex: Int?

    init(_ text: String) throws(HTTPRouteError) {
        guard text.first == "/" else { throw .invalidPattern(text) }
        var segments: [Segment] = []
        var names: Set<String> = []
        var greedyIndex: Int?
        if text != "/" {
            for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
                let segment = try Self.compile(raw, pattern: text)
                switch segment {
                case .literal: break
                case .parameter(let name), .greedy(let name):
                    guard names.insert(name).inserted else { throw .invalidPattern(text) }
                }
                if case .greedy = segment {
                    guard greedyIndex == nil else { throw .invalidPattern(text) }
                    greedyIndex = segments.count
                }
                segments.append(segment)
            }
        }
        self.text = text
        self.segments = segments
        self.greedyIndex = greedyIndex
    }

    private static func compile(_ raw: Substring, pattern: String) throws(HTTPRouteError) -> Segment {
        guard !raw.isEmpty else { throw .invalidPattern(pattern) }
        if raw.hasPrefix("{") {
            guard raw.hasSuffix("}") else { throw .invalidPattern(pattern) }
            var name = raw.dropFirst().dropLast()
            let greedy = name.hasSuffix("...")
            if greedy { name = name.dropLast(3) }
            guard !name.isEmpty, name.utf8.allSatisfy({ ASCII.isTokenChar($0) && $0 != UInt8(ascii: ".") })
            else { throw .invalidPattern(pattern) }
            return greedy ? .greedy(String(name)) : .parameter(String(name))
        }
        guard !raw.contains("{"), !raw.contains("}"), raw.utf8.allSatisfy(ASCII.isVisible),
              !raw.contains("?"), !raw.contains("#")
        else { throw .invalidPattern(pattern) }
        return .literal(String(raw))
    }

    /// The literal a path's first segment must equal, or nil when the pattern starts with a
    /// parameter (or is "/"). Used to index routes.
    var firstLiteral: String? {
        if case .literal(let text)? = segments.first { return text }
        return nil
    }

    /// Structural match (segment counts and literals) without decoding or allocating.
    func matchesShape(_ path: [Substring]) -> Bool {
        guard let g = greedyIndex else {
            guard path.count == segments.count else { return false }
            return zip(segments, path).allSatisfy { Self.segment($0, accepts: $1) }
        }
        let suffixCount = segments.count - g - 1
        // The greedy parameter needs at least one segment.
        guard path.count >= segments.count else { return false }
        for i in 0..<g where !Self.segment(segments[i], accepts: path[i]) { return false }
        let pathSuffixStart = path.count - suffixCount
        for j in 0..<suffixCount where !Self.segment(segments[g + 1 + j], accepts: path[pathSuffixStart + j]) {
            return false
        }
        return path[g..<pathSuffixStart].allSatisfy { !$0.isEmpty }
    }

    /// Decoded parameters of a path that `matchesShape`; nil when a value is rejected (see
    /// `HTTPPathParameters.decode`).
    func parameters(of path: [Substring]) -> HTTPPathParameters? {
        var params = HTTPPathParameters()
        let suffixCount = greedyIndex.map { segments.count - $0 - 1 } ?? 0
        let greedySpan = path.count - segments.count + 1
        for (i, segment) in segments.enumerated() {
            switch segment {
            case .literal:
                continue
            case .parameter(let name):
                let index = greedyIndex.map { i > $0 ? path.count - suffixCount + (i - $0 - 1) : i } ?? i
                guard let value = HTTPPathParameters.decode(path[index...index]) else { return nil }
                params.append(name: name, value: value)
            case .greedy(let name):
                guard let value = HTTPPathParameters.decode(path[i..<(i + greedySpan)]) else { return nil }
                params.append(name: name, value: value)
            }
        }
        return params
    }

    /// Same literals and parameter positions, whatever the parameter names: two such patterns
    /// match exactly the same paths.
    func hasSameShape(as other: HTTPRoutePattern) -> Bool {
        guard segments.count == other.segments.count else { return false }
        return zip(segments, other.segments).allSatisfy { pair in
            switch pair {
            case (.literal(let a), .literal(let b)): a == b
            case (.parameter, .parameter), (.greedy, .greedy): true
            default: false
            }
        }
    }

    private static func segment(_ segment: Segment, accepts raw: Substring) -> Bool {
        switch segment {
        case .literal(let text): raw == text
        case .parameter, .greedy: !raw.isEmpty
        }
    }
}
