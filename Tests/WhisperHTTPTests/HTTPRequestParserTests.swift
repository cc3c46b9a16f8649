import Testing
@testable import WhisperHTTP
import WhisperTesting

@Suite struct HTTPRequestParserTests {
    static let postWithBody = "POST /reports?x=1 HTTP/1.1\r\nHost: relay.example\r\nContent-Type: application/json\r\n"
        + "Content-Length: 13\r\n\r\n{\"a\":\"hello\"}"

    @Test func simpleGet_parses() throws {
        let req = try #require(request(parseOne("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")))
        #expect(req.method == "GET")
        #expect(req.path == "/health")
        #expect(req.query == nil)
        #expect(req.version == .http1_1)
        #expect(req.headers["host"] == "a")
        #expect(req.body.isEmpty)
    }

    @Test func splitReads_atEveryByteBoundary_yieldSameRequest() throws {
        let all = bytes(Self.postWithBody)
        let whole = try #require(request(parseOne(Self.postWithBody)))
        #expect(whole.body == bytes("{\"a\":\"hello\"}"))
        #expect(whole.query == "x=1")
        for split in 1..<all.count {
            var parser = HTTPRequestParser()
            parser.feed(all[..<split])
            #expect(parser.next().isNeedMoreData, "split at \(split)")
            parser.feed(all[split...])
            #expect(parser.next() == .request(whole), "split at \(split)")
            #expect(parser.next().isNeedMoreData)
        }
    }

    @Test func byteByByteFeeding_yieldsRequestOnlyAfterLastByte() {
        let all = bytes(Self.postWithBody)
        var parser = HTTPRequestParser()
        for (i, byte) in all.enumerated() {
            parser.feed([byte])
            let result = parser.next()
            if i == all.count - 1 {
                #expect(request(result)?.body.count == 13)
            } else {
                #expect(result.isNeedMoreData, "byte \(i)")
            }
        }
    }

    @Test func pipelinedRequests_inOneFeed_comeOutOneByOne() {
        let text = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "GET /c HTTP/1.1\r\nHost: h\r\n\r\n"
            + "GET /d HT"
        var parser = HTTPRequestParser()
        parser.feed(bytes(text))
        let results = drain(&parser, bodyLimit: 100)
        #expect(results.count == 4)
        #expect(request(results[0])?.path == "/a")
        #expect(request(results[1])?.path == "/b")
        #expect(request(results[1])?.body == bytes("hello"))
        #expect(request(results[2])?.path == "/c")
        #expect(results[3].isNeedMoreData)
        #expect(parser.bufferedByteCount == 9)
        parser.feed(bytes("TP/1.1\r\nHost: h\r\n\r\n"))
        #expect(request(parser.next())?.path == "/d")
    }

    @Test func leadingEmptyLines_beforeRequestLine_areIgnored() {
        #expect(request(parseOne("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"))?.path == "/")
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false),
    ])
    func keepAlive_followsVersionAndConnectionHeader(text: String, keepAlive: Bool) {
        #expect(request(parseOne(text))?.keepAlive == keepAlive)
    }

    @Test func http10_withoutHost_isAccepted() {
        #expect(request(parseOne("GET / HTTP/1.0\r\n\r\n"))?.version == .http1_0)
    }

    @Test func takeRemainingBytes_afterUpgradeRequest_returnsFollowingFrames() throws {
        let head = "GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Version: 13\r\n\r\n"
        var parser = HTTPRequestParser()
        parser.feed(bytes(head) + [0x81, 0x85, 0x01, 0x02])
        let req = try #require(request(parser.next()))
        #expect(req.isUpgradeRequest)
        #expect(req.headers.tokens(for: "connection") == ["keep-alive", "Upgrade"])
        #expect(parser.takeRemainingBytes() == [0x81, 0x85, 0x01, 0x02])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func upgradeRequest_needsUpgradeConnectionOption() {
        let req = request(parseOne("GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n"))
        #expect(req?.isUpgradeRequest == false)
    }

    @Test func manyKeepAliveRequests_doNotGrowBuffer() {
        var parser = HTTPRequestParser()
        let one = bytes("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n" + String(repeating: "z", count: 100))
        for _ in 0..<2_000 {
            parser.feed(one + one[..<10])
            #expect(request(parser.next()) != nil)
            parser.feed(one[10...])
            #expect(request(parser.next()) != nil)
            #expect(parser.next().isNeedMoreData)
        }
        #expect(parser.buffer.count <= HTTPRequestParser.compactionThreshold * 2 + one.count * 2)
    }

    @Test func expectContinue_exposesPendingHeadBeforeBody() {
        var parser = HTTPRequestParser()
        parser.feed(bytes("PUT /backup/contacts HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"))
        #expect(parser.next().isNeedMoreData)
        #expect(parser.pendingHead?.expectsContinue == true)
        parser.feed(bytes("abcd"))
        #expect(request(parser.next())?.body == bytes("abcd"))
        #expect(parser.pendingHead == nil)
    }

    @Test func errorIsSticky_andLaterFeedsAreIgnored() {
        var parser = HTTPRequestParser()
        parser.feed(bytes("GET / HTTP/2.0\r\n\r\n"))
        #expect(parser.next() == .error(.unsupportedVersion))
        parser.feed(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(parser.next() == .error(.unsupportedVersion))
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func queryParameters_arePercentDecoded() throws {
        let req = try #require(request(parseOne("GET /admin/reports?status=open&cursor=a%2Bb+c&flag HTTP/1.1\r\nHost: h\r\n\r\n")))
        let params = try #require(req.queryParameters)
        #expect(params["status"] == "open")
        #expect(params["cursor"] == "a+b+c")
        #expect(params["flag"] == "")
        #expect(params["missing"] == nil)
    }
}

@Suite struct HTTPRequestParserResumptionTests {
    @Test func partialHead_remembersHowFarItScanned() {
        var parser = HTTPRequestParser()
        parser.feed(bytes("GET / HTTP/1.1\r\nHo"))
        #expect(parser.next().isNeedMoreData)
        guard case .head(let scanned) = parser.state else {
            Issue.record("expected head state")
            return
        }
        #expect(scanned == 18)
        parser.feed(bytes("st: h\r\n\r"))
        #expect(parser.next().isNeedMoreData)
        guard case .head(let later) = parser.state else {
            Issue.record("expected head state")
            return
        }
        #expect(later == 26)
    }

    @Test func goodRequestFollowedByMalformedOne_yieldsRequestThenError() {
        let results = parseAll("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n")
        #expect(request(results[0])?.path == "/a")
        #expect(results[1] == .error(.invalidHeaderName))
    }

    /// Mutated requests fed in random chunks must give the same results as fed whole, and never trap.
    @Test func randomChunkingOfMutatedInput_neverChangesTheOutcome() {
        var rng = SplitMix64(seed: 0x5EED)
        let seeds = [
            "POST /reports?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
            "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.0\r\n\r\n",
            "\r\nPUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
        ].map(bytes)
        let alphabet: [UInt8] = Array("\r\n :/?%0123456789aZ\t\u{0}".utf8) + [0xFF]
        for _ in 0..<3_000 {
            var input = seeds[Int(rng.next() % UInt64(seeds.count))]
            for _ in 0..<Int(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(input.count))
                input[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            let limits = HTTPLimits(maxHeaderBytes: 40 + Int(rng.next() % 40), maxHeaderCount: 3, defaultMaxBodyBytes: 4)
            var whole = HTTPRequestParser(limits: limits)
            whole.feed(input)
            let expected = drain(&whole, bodyLimit: 4)

            var chunked = HTTPRequestParser(limits: limits)
            var results: [HTTPParseResult] = []
            var offset = 0
            while offset < input.count {
                let end = min(input.count, offset + 1 + Int(rng.next() % 7))
                chunked.feed(input[offset..<end])
                offset = end
                var step = drain(&chunked, bodyLimit: 4)
                if offset < input.count, step.last?.isNeedMoreData == true { step.removeLast() }
                results += step
                if case .error? = step.last { break }
            }
            #expect(results == expected, "input \(input)")
        }
    }
}
