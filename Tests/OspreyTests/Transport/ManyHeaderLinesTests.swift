import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// A response head of many lines costs work in proportion to its size, in every stage that
/// reads it (the transport's reader, the cookie jar, metrics, the pipeline's headers).
@Suite("Transport: a head of ten thousand lines")
struct ManyHeaderLinesTests {
    @Test("10,000 header lines (about 130 KB of head) arrive whole, on the test transport")
    func tenThousandLines() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/many") { _ in
            var response = LoopbackServer.Response.text("many")
            for index in 0..<10_000 {
                response.headers.append(LoopbackServer.HeaderField("X-\(index)", "v\(index)"))
            }
            return response
        }
        let api = TestAPI(server)
        // Measured: 0.16 s in a debug build; 96 s while HTTPHeaders joined and built fields
        // name by name (quadratic). A deadline far from both keeps the work in proportion
        // without timing the test: a machine would have to be 200 times slower to fail it.
        // ThreadSanitizer with every suite on two cores is: there, this test once ran past it,
        // and the run looks for races, not for work out of proportion (the other runs do).
        api.configuration.deadline = TestEnvironment.isThreadSanitized ? nil : 30
        let answer: APIResponse<String> = try await api.request(route: api.get(endpoint: "/many")).value
        #expect(answer.value == "many")
        #expect(answer.headers["X-9999"] == "v9999")
        #expect(answer.headers.names.filter { $0.hasPrefix("X-") }.count == 10_000)
        #expect(answer.headers.dictionary.count >= 10_000)
    }
}

@Suite("Routing: HTTPHeaders stays linear in its fields")
struct HTTPHeadersScaleTests {
    @Test("a dictionary, a merge and the dictionary initialiser keep every field and join repeats")
    func largeHeaders() {
        var lines: [(name: String, value: String)] = (0..<20_000).map { ("X-\($0)", "v\($0)") }
        lines.append(("x-1", "again"))
        let headers = HTTPHeaders(lines: lines)
        let dictionary = headers.dictionary
        #expect(dictionary.count == 20_000)
        #expect(dictionary["X-1"] == "v1, again")
        let rebuilt = HTTPHeaders(dictionary)
        #expect(rebuilt.count == 20_000)
        #expect(rebuilt["x-1"] == "v1, again")
        let merged = headers.merging(["X-2": "new", "X-New": "n"])
        #expect(merged.count == 20_002)
        #expect(merged.values(for: "X-2") == ["new"] && merged["X-1"] == "v1")
        #expect(HTTPHeaders(["a": "1", "A": "2"]).count == 1)
    }
}
