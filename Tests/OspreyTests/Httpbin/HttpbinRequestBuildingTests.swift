import Foundation
import Osprey
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request-building cases against a third-party server: httpbin's `/anything` echoes what
/// it parsed (`args`, `form`, `json`, `url`) with its own decoder (werkzeug).
@Suite(
    "httpbin: built requests round-trip through /anything",
    .enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set: run the tests with Scripts/test.sh")
)
struct HttpbinRequestBuildingTests {
    struct Echo: Decodable {
        var args: [String: ArgValue]
        var form: [String: ArgValue]
        var json: JSONValue?
        var url: String
        var method: String
        var headers: [String: String]
    }

    /// httpbin reports a repeated key as a list.
    enum ArgValue: Decodable, Equatable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let list = try? container.decode([String].self) {
                self = .many(list)
            } else {
                self = .one(try container.decode(String.self))
            }
        }
    }

    enum JSONValue: Decodable, Equatable {
        case object([String: String])
        case other

        init(from decoder: any Decoder) throws {
            self = (try? .object(decoder.singleValueContainer().decode([String: String].self))) ?? .other
        }
    }

    struct API: BaseAPI {
        let baseURL: String
    }

    private func echo(_ route: Route, _ parameters: (any RequestParameters)? = nil) async throws -> Echo {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.fetch(try route.makeURLRequest(parameters: parameters))
        #expect(response.statusCode == 200)
        return try JSONDecoder().decode(Echo.self, from: data)
    }

    private var api: API { API(baseURL: Httpbin.baseURL!.absoluteString) }

    @Test("query values survive: + & = # % ; space unicode, arrays in brackets")
    func query() async throws {
        let parameters = URLParameters([
            "plus": "a+b", "amp": "x&y=z", "hash": "#f", "pct": "100%", "uni": "Zoë", "tags": ["a", "b"],
        ])
        let echo = try await echo(api.get(endpoint: "/anything/q"), parameters)
        #expect(echo.args["plus"] == .one("a+b"))
        #expect(echo.args["amp"] == .one("x&y=z"))
        #expect(echo.args["hash"] == .one("#f"))
        #expect(echo.args["pct"] == .one("100%"))
        #expect(echo.args["uni"] == .one("Zoë"))
        #expect(echo.args["tags[]"] == .many(["a", "b"]))
    }

    @Test("a hostile path value stays data: no query, no fragment, no parent directory")
    func pathSegment() async throws {
        // werkzeug reports the path decoded, so the segment's own "/" shows again; what matters
        // here is that "?" and "#" did not start a query or fragment and ".." was not resolved.
        // The exact bytes on the wire are checked against the loopback server.
        let echo = try await echo(api.get(endpoint: "/anything/\("../a?b#c d/é")/end"))
        #expect(echo.url.removingPercentEncoding?.hasSuffix("/anything/../a?b#c d/é/end") == true)
        #expect(echo.args.isEmpty)
    }

    @Test("form fields are parsed back exactly")
    func form() async throws {
        let echo = try await echo(
            api.post(endpoint: "/anything"), FormURLParameters(["name": "a b+c&d=é", "tags": ["x", "y"]]))
        #expect(echo.method == "POST")
        #expect(echo.form["name"] == .one("a b+c&d=é"))
        #expect(echo.form["tags[]"] == .many(["x", "y"]))
        #expect(echo.headers["Content-Type"] == "application/x-www-form-urlencoded")
    }

    @Test("a JSON body is parsed back exactly")
    func json() async throws {
        let echo = try await echo(
            api.patch(endpoint: "/anything"), JSONParameters(["message": "hé \"quoted\" & more"]))
        #expect(echo.method == "PATCH")
        #expect(echo.json == .object(["message": "hé \"quoted\" & more"]))
    }
}
