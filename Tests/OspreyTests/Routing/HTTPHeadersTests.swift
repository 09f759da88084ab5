import Foundation
import Osprey
import Testing

@Suite("HTTPHeaders: case-insensitive, ordered, validated")
struct HTTPHeadersTests {
    @Test("setting a name in another case replaces the value, keeping its place")
    func caseInsensitive() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Accept": "*/*"]
        headers["content-type"] = "application/json"
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.count == 2)
        #expect(headers.map(\.name) == ["content-type", "Accept"])
    }

    @Test("add keeps repeated values; setting replaces all of them; nil removes")
    func repeated() {
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "cache-control", value: "no-store")
        #expect(headers.values(for: "CACHE-CONTROL") == ["no-cache", "no-store"])
        #expect(headers.dictionary == ["Cache-Control": "no-cache, no-store"])
        headers["Cache-Control"] = "max-age=0"
        #expect(headers.values(for: "cache-control") == ["max-age=0"])
        headers["cache-control"] = nil
        #expect(!headers.contains("Cache-Control"))
    }

    @Test("merging lets the other headers win, case-insensitively")
    func merging() {
        let defaults: HTTPHeaders = ["Accept": "application/json", "User-Agent": "osprey"]
        let merged = defaults.merging(["accept": "text/csv"])
        #expect(merged["Accept"] == "text/csv")
        #expect(merged["User-Agent"] == "osprey")
        #expect(merged.count == 2)
    }

    @Test("Basic and Bearer authorization values")
    func authorization() {
        var headers = HTTPHeaders()
        headers.setAuthorization(.basic(username: "ada", password: "p@ss:wörd"))
        #expect(headers["Authorization"] == "Basic " + Data("ada:p@ss:wörd".utf8).base64EncodedString())
        headers.setAuthorization(.bearer("t0k3n"))
        #expect(headers["authorization"] == "Bearer t0k3n")
        #expect(headers.count == 1)
    }

    @Test("descriptions never show credentials")
    func redaction() {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer secret1", "Cookie": "s=secret2", "X-Api-Key": "secret3", "Accept": "a/b",
        ]
        #expect(!headers.description.contains("secret"))
        #expect(headers.description.contains("Accept: a/b"))
    }

    @Test(
        "refuses invalid names and values",
        arguments: [
            ("X-Test", "a\r\nX-Injected: 1"), ("X-Test", "a\nb"), ("X-Test", "a\rb"), ("X-Test", "a\u{0}b"),
            ("X-Test", "a\r\n b"), ("X-Test", "bell\u{7}"), ("X Test", "v"), ("X-Test:", "v"), ("", "v"),
            ("X-Tést", "v"), ("X-Test\r\nX-Injected", "v"),
        ])
    func refuses(name: String, value: String) {
        let headers: HTTPHeaders = [name: value]
        #expect(throws: APIError.self) { try headers.validate() }
    }

    @Test("accepts ordinary values, tabs and non-ASCII text")
    func accepts() throws {
        let headers: HTTPHeaders = ["X-Tab": "a\tb", "X-Text": "héllo wörld", "X-Token!#$%&'*+-.^_`|~": "v"]
        try headers.validate()
    }
}
