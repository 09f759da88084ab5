import Foundation
import OspreyFuzzTargets
import Testing

/// Every input in `Fuzz/Corpus` (the seeds, and each crash a fuzzer found, kept as a regression
/// input) goes through its target on every test run: a parser that crashes on one of them, or
/// breaks a promise its target checks, fails here without a fuzzer.
@Suite("Fuzz corpora replay through their targets")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Fuzz/Corpus").standardizedFileURL

    @Test("each target's corpus is read without a crash", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) async throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "no seed inputs in \(folder.path)")
        // Off the cooperative pool: some corpora take seconds.
        try await offPool {
            for file in files {
                target.run(try Data(contentsOf: folder.appendingPathComponent(file)))
            }
        }
    }
}
