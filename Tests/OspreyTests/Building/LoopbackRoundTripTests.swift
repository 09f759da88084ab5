import Foundation
import Osprey
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built requests sent through URLSession to the loopback server: the bytes it records are
/// what went over the wire.
@Suite("Built requests on the wire (loopback server)")
struct LoopbackRoundTripTests {
    struct API: BaseAPI {
        var baseURL: String
    }

    @Test(
        "an interpolated path value reaches the server as one segment and decodes back",
        arguments: [
            "../a?b#c d/é", "..", ".", "a%2Fb", "//evil.example/x", "semi;colon=eq&amp+plus",
        ])
    func pathSegment(value: String) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/users/:name/repos") { .text($0.pathParameters["name"] ?? "") }
        let api = API(baseURL: server.baseURL.absoluteString)
        let request = try api.get(endpoint: "/users/\(value)/repos").makeURLRequest()
        let (body, response) = try await URLSession(configuration: .ephemeral).fetch(request)
        #expect(response.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == value)
        #expect(server.requests.first?.target == "/users/\(PercentEncodingOracle.segment(value))/repos")
    }

    @Test("query values with + & = # % ; space and unicode survive exactly")
    func query() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/search") { .echo(of: $0) }
        let values = [
            "plus": "a+b", "amp": "x&y=z", "hash": "#frag", "pct": "100%", "semi": "a;b", "sp": "a b",
            "uni": "Zoë",
        ]
        let request = try Route.get(server.url("/search?fixed=1").absoluteString)
            .makeURLRequest(parameters: URLParameters(values))
        _ = try await URLSession(configuration: .ephemeral).fetch(request)
        let received = try #require(server.requests.first)
        var decoded: [String: String] = [:]
        for item in received.queryItems { decoded[item.name] = item.value }
        #expect(decoded == values.merging(["fixed": "1"]) { $1 })
    }

    @Test("a header added twice goes out as one list line; setting one replaces every value")
    func repeatedHeaders() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/h") { _ in .text("ok") }
        let api = API(baseURL: server.baseURL.absoluteString)
        var headers: HTTPHeaders = ["X-Set": "first"]
        headers.add(name: "X-Multi", value: "a")
        headers.add(name: "x-multi", value: "b")
        headers["X-SET"] = "second"
        let request = try api.get(endpoint: "/h").makeURLRequest(parameters: URLParameters(headers: headers))
        _ = try await URLSession(configuration: .ephemeral).fetch(request)
        let received = try #require(server.requests.first)
        #expect(received.values(forHeader: "X-Multi") == ["a, b"])
        #expect(received.values(forHeader: "X-Set") == ["second"])
    }

    @Test("form and JSON bodies arrive byte for byte with their Content-Type; GET sends neither")
    func bodies() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/echo") { .echo(of: $0) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let url = server.url("/echo").absoluteString

        _ = try await session.fetch(
            try Route.post(url).makeURLRequest(parameters: FormURLParameters(["a b": "c&d"])))
        _ = try await session.fetch(try Route.put(url).makeURLRequest(parameters: JSONParameters(["k": "v"])))
        _ = try await session.fetch(try Route.get(url).makeURLRequest(parameters: URLParameters(["q": 1])))

        let form = server.requests[0]
        #expect(form.bodyText == "a%20b=c%26d")
        #expect(form.value(forHeader: "Content-Type") == "application/x-www-form-urlencoded")
        let json = server.requests[1]
        #expect(json.method == "PUT")
        #expect(json.bodyText == #"{"k":"v"}"#)
        #expect(json.value(forHeader: "Content-Type") == "application/json")
        let get = server.requests[2]
        #expect(get.value(forHeader: "Content-Type") == nil)
        #expect(get.value(forHeader: "Content-Length") == nil)
        #expect(get.body.isEmpty)
    }
}

/// An independent statement of RFC 3986 segment encoding, to compare against the library's.
enum PercentEncodingOracle {
    static func segment(_ value: String) -> String {
        if value == "." { return "%2E" }
        if value == ".." { return "%2E%2E" }
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
