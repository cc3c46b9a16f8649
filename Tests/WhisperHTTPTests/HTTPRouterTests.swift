import Testing
@testable import WhisperHTTP

@Suite struct HTTPRouterTests {
    static func router() throws -> HTTPRouter<String> {
        var router = HTTPRouter<String>()
        try router.add("GET", "/health", "health")
        try router.add("GET", "/users/{whisperId}/keys", "keys")
        try router.add("POST", "/admin/reports/{id}/review", "review")
        try router.add("GET", "/admin/reports", "reports")
        try router.add("POST", "/attachments/presign", "presign")
        try router.add("GET", "/attachments/{objectKey...}/download", "download")
        try router.add("PUT", "/backup/contacts", "backup-put")
        try router.add("GET", "/backup/contacts", "backup-get")
        return router
    }

    func found(_ match: HTTPRouter<String>.Match) -> (String, HTTPPathParameters)? {
        if case .found(let handler, let params) = match { return (handler, params) }
        return nil
    }

    @Test func literalRoute_matches() throws {
        #expect(found(try Self.router().match(method: "GET", path: "/health"))?.0 == "health")
    }

    @Test func singleSegmentParameters_areExtracted() throws {
        let router = try Self.router()
        let keys = try #require(found(router.match(method: "GET", path: "/users/WSP-ABCD-EFGH-IJKL/keys")))
        #expect(keys.0 == "keys")
        #expect(keys.1["whisperId"] == "WSP-ABCD-EFGH-IJKL")
        let review = try #require(found(router.match(method: "POST", path: "/admin/reports/42/review")))
        #expect(review.1["id"] == "42")
    }

    @Test func greedyParameter_spansSlashes() throws {
        let key = "att/2026/11/0b9e4c2a-8f5d-4c3e-9a7b-1d2e3f4a5b6c.bin"
        let match = try #require(found(Self.router().match(method: "GET", path: "/attachments/\(key)/download")))
        #expect(match.0 == "download")
        #expect(match.1["objectKey"] == key)
    }

    @Test func greedyParameter_acceptsPercentEncodedSlashes() throws {
        let match = try #require(found(Self.router().match(method: "GET", path: "/attachments/att%2F2026%2F11%2Fx.bin/download")))
        #expect(match.1["objectKey"] == "att/2026/11/x.bin")
    }

    @Test func greedyParameter_needsAtLeastOneSegment_andTheSuffix() throws {
        let router = try Self.router()
        #expect(found(router.match(method: "GET", path: "/attachments/download")) == nil)
        #expect(found(router.match(method: "GET", path: "/attachments/a/b")) == nil)
        #expect(found(router.match(method: "GET", path: "/attachments/a//b/download")) == nil)
    }

    @Test func parametersAroundGreedy_landOnTheRightSegments() throws {
        var router = HTTPRouter<String>()
        try router.add("GET", "/{a}/x/{rest...}/y/{b}", "mixed")
        let match = try #require(found(router.match(method: "GET", path: "/1/x/p/q/r/y/2")))
        #expect(match.1.items.map(\.name) == ["a", "rest", "b"])
        #expect(match.1.items.map(\.value) == ["1", "p/q/r", "2"])
        #expect(found(router.match(method: "GET", path: "/1/x/y/2")) == nil)
    }

    @Test func parameters_arePercentDecoded() throws {
        let match = try #require(found(Self.router().match(method: "GET", path: "/users/WSP%2DA%20b/keys")))
        #expect(match.1["whisperId"] == "WSP-A b")
    }

    @Test(arguments: [
        "/attachments/att/../secret/download", "/attachments/att/%2E%2E/x/download", "/attachments/att%2F..%2Fx/download",
        "/users/%00/keys", "/users/%zz/keys", "/users/%FF/keys", "/users/../keys", "/users/./keys", "/users/%2F/keys",
    ])
    func unsafeOrInvalidParameter_isNotFound(path: String) throws {
        let match = try Self.router().match(method: "GET", path: path)
        guard case .notFound = match else {
            Issue.record("expected notFound for \(path), got \(match)")
            return
        }
    }

    @Test func wrongMethod_is405_withAllowList() throws {
        let router = try Self.router()
        guard case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/backup/contacts") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == ["PUT", "GET", "HEAD"])
        guard case .methodNotAllowed(let onlyPost) = router.match(method: "GET", path: "/attachments/presign") else {
            Issue.record("expected 405")
            return
        }
        #expect(onlyPost == ["POST"])
    }

    @Test func head_fallsBackToGet() throws {
        #expect(found(try Self.router().match(method: "HEAD", path: "/health"))?.0 == "health")
    }

    @Test func methods_areCaseSensitive() throws {
        guard case .methodNotAllowed = try Self.router().match(method: "get", path: "/health") else {
            Issue.record("expected 405")
            return
        }
    }

    @Test(arguments: ["/nope", "/health/", "/users//keys", "/users/a/keys/", "health", "", "/"])
    func unknownPath_isNotFound(path: String) throws {
        guard case .notFound = try Self.router().match(method: "GET", path: path) else {
            Issue.record("expected notFound for \(path)")
            return
        }
    }

    @Test func firstRegisteredRoute_winsAcrossIndexedAndParameterRoutes() throws {
        var router = HTTPRouter<String>()
        try router.add("GET", "/{any}/x", "param")
        try router.add("GET", "/a/x", "literal")
        try router.add("GET", "/", "root")
        #expect(found(router.match(method: "GET", path: "/a/x"))?.0 == "param")
        #expect(found(router.match(method: "GET", path: "/"))?.0 == "root")
    }

    @Test(arguments: ["health", "/a//b", "/a/", "/{}", "/{a}/{a}", "/{a...}/{b...}", "/x{a}", "/{a", "/a?b"])
    func invalidPattern_isRejected(pattern: String) {
        var router = HTTPRouter<String>()
        #expect(throws: HTTPRouteError.invalidPattern(pattern)) { try router.add("GET", pattern, "h") }
    }

    @Test func duplicateRoute_isRejected() throws {
        var router = HTTPRouter<String>()
        try router.add("GET", "/a/{x}", "1")
        #expect(throws: HTTPRouteError.duplicateRoute(method: "GET", pattern: "/a/{y}")) {
            try router.add("GET", "/a/{y}", "2")
        }
    }

    @Test func router_matchesAParsedRequestsPath() throws {
        let req = try #require(request(parseOne("GET /users/WSP-1/keys?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(found(try Self.router().match(method: req.method, path: req.path))?.1["whisperId"] == "WSP-1")
    }
}
