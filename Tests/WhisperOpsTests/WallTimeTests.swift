import Glibc
import Testing
import WhisperOps

@Suite struct WallTimeTests {
    @Test(arguments: [
        (0, 0, "1970-01-01T00:00:00.000Z"),
        (1_700_000_000, 123_456_789, "2023-11-14T22:13:20.123Z"),
        (1_709_164_800, 999_999_999, "2024-02-29T00:00:00.999Z"),
        (951_782_400, 5_000_000, "2000-02-29T00:00:00.005Z"),
        (253_402_300_799, 0, "9999-12-31T23:59:59.000Z"),
        (-1, 0, "1969-12-31T23:59:59.000Z"),
    ] as [(Int64, Int32, String)])
    func rfc3339_formatsUTCWithMilliseconds(seconds: Int64, nanoseconds: Int32, expected: String) {
        #expect(WallTime(secondsSinceEpoch: seconds, nanoseconds: nanoseconds).rfc3339 == expected)
    }

    @Test(arguments: [(0, 0, 0), (1_700_000_000, 123_456_789, 1_700_000_000_123), (-1, 999_999_999, -1)]
          as [(Int64, Int32, Int64)])
    func epochMillis_truncatesToWholeMilliseconds(seconds: Int64, nanoseconds: Int32, expected: Int64) {
        #expect(WallTime(secondsSinceEpoch: seconds, nanoseconds: nanoseconds).epochMillis == expected)
    }

    @Test func rfc3339_agreesWithGmtime() {
        var seconds: Int64 = 0
        for _ in 0..<2000 {
            seconds = (seconds &* 6364136223846793005 &+ 1442695040888963407) & 0x1_FFFF_FFFF  // up to year ~2242
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = formatted(parts)
            #expect(WallTime(secondsSinceEpoch: seconds, nanoseconds: 0).rfc3339 == expected)
        }
    }

    @Test func now_isAfter2024() {
        #expect(WallTime.now().secondsSinceEpoch > 1_704_067_200)
    }
}

/// The same instant formatted from glibc's broken-down time.
private func formatted(_ parts: tm) -> String {
    func pad(_ value: Int32, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
        + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).000Z"
}
