import Foundation
import Testing

@Suite("Tests: what they run under")
struct TestEnvironmentTests {
    // Every ThreadSanitizer run (.ci/run, the README's commands) sets TSAN_OPTIONS, and no
    // other run does: the two must agree, or a check meant for normal speed runs under the
    // sanitizer (or the other way round).
    @Test("ThreadSanitizer is seen in the runs that set TSAN_OPTIONS, and only there")
    func threadSanitizerSeen() {
        let optionsSet = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
        #expect(TestEnvironment.isThreadSanitized == optionsSet)
    }
}
