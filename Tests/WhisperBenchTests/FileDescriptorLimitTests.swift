import Testing
@testable import WhisperBench

struct FileDescriptorLimitTests {
    @Test func smallNeeds_areMet() throws {
        #expect(try FileDescriptorLimit.ensure(256) >= 256)
    }

    @Test func impossibleNeeds_sayWhatToDo() {
        do {
            try FileDescriptorLimit.ensure(1 << 40)
            Issue.record("expected a file limit error")
        } catch {
            #expect(error.description.contains("ulimit -n"))
        }
    }
}
