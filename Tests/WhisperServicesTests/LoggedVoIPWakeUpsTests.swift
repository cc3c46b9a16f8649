import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// The wake-up of today is one log line (docs/operations.md "Logs"): it names the call and
/// says plainly that nothing was sent.
@Suite struct LoggedVoIPWakeUpsTests {
    @Test func wakeUpRequest_logsOneInfoLineWithIdsOnly_andSaysNothingWasSent() throws {
        let sink = MemoryLogSink()
        let wakeUps = LoggedVoIPWakeUps(log: Log(level: .info, sink: sink))
        let callee = WhisperID.random(), caller = WhisperID.random()
        let callId = try #require(CanonicalUUID("6F1C8E5A-3D2B-4C7E-9A10-52B4D7E8F901"))
        wakeUps.requestWakeUp(callee: callee, caller: caller, callId: callId)
        #expect(sink.lines.count == 1)
        let line = try #require(sink.lines.first)
        for part in [#""event":"voip_wakeup_requested""#, #""level":"info""#, #""whisperId":"\#(callee.string)""#,
                     #""caller":"\#(caller.string)""#, #""callId":"6f1c8e5a-3d2b-4c7e-9a10-52b4d7e8f901""#, #""sent":false"#] {
            #expect(line.contains(part), "\(part) missing in \(line)")
        }
    }

    @Test func wakeUpRequest_isSilent_whenInfoIsOff() {
        let sink = MemoryLogSink()
        LoggedVoIPWakeUps(log: Log(level: .warn, sink: sink))
            .requestWakeUp(callee: WhisperID.random(), caller: WhisperID.random(), callId: CanonicalUUID.random())
        #expect(sink.lines.isEmpty)
    }
}
