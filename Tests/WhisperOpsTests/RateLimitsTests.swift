import Testing
@testable import WhisperOps

@Suite struct RateLimitsTests {
    @Test(arguments: [("10/60", 10, 60), (" 3 / 1 ", 3, 1), ("1000000000/604800", 1_000_000_000, 604_800)]
          as [(String, Int, Int)])
    func parse_acceptsCountSlashSeconds(text: String, count: Int, seconds: Int) {
        #expect(RateLimit.parse(text) == RateLimit(count: count, windowSeconds: seconds))
    }

    @Test(arguments: ["10", "10/", "/60", "0/60", "10/0", "-1/60", "1.5/60", "10/60/1", "a/b", "1000000001/1",
                      "1/604801", "99999999999999999999/1"])
    func parse_rejectsMalformedLimits(_ text: String) {
        #expect(RateLimit.parse(text) == nil)
    }

    @Test func defaults_coverEveryActionInBothScopes() {
        for action in RateLimitAction.allCases {
            for scope in RateLimitScope.allCases {
                let limit = RateLimits.defaults[action, scope]
                #expect(limit.count >= 1 && limit.windowSeconds >= 1, "\(action) \(scope)")
            }
            #expect(RateLimits.defaults[action, .ip].count >= RateLimits.defaults[action, .identity].count)
        }
    }

    @Test func environment_overridesEachActionAndScopeIndependently() throws {
        var environment: [String: String] = [:]
        for (index, action) in RateLimitAction.allCases.enumerated() {
            environment["WHISPER_RATE_\(action.environmentName)"] = "\(index + 1)/7"
            environment["WHISPER_RATE_\(action.environmentName)_IP"] = "\(index + 100)/9"
        }
        let limits = try loadConfig(environment).rateLimits
        for (index, action) in RateLimitAction.allCases.enumerated() {
            #expect(limits[action, .identity] == RateLimit(count: index + 1, windowSeconds: 7))
            #expect(limits[action, .ip] == RateLimit(count: index + 100, windowSeconds: 9))
        }
    }

    @Test func unknownRateVariable_isAnErrorNamingIt() {
        let error = configError(["WHISPER_RATE_SENDS": "1/1"])
        #expect(error?.description == "WHISPER_RATE_SENDS: unknown variable; rate-limit actions are REGISTER, SEND, "
            + "FETCH, TOKENS, GROUP, CALL, TYPING, REPORT, PRESIGN, BACKUP, each optionally with _IP")
    }

    @Test func scopeVariableNames_followTheContract() {
        #expect(RateLimitScope.identity.variable(for: .presign) == "WHISPER_RATE_PRESIGN")
        #expect(RateLimitScope.ip.variable(for: .register) == "WHISPER_RATE_REGISTER_IP")
        #expect(RateLimitAction.tokens.rawValue == "tokens")
    }
}
