import Foundation
import Osprey
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The first snippet of the "Building requests" article, as written there, and the
/// heterogeneous literal it mentions. (Its typed request, `Request.login`, is the one
/// `RequestTests` runs.)
@Suite("Articles: building requests")
struct BuildingRequestsArticleTests {
    struct GitHub: BaseAPI {
        let baseURL = "https://api.github.com"
    }

    @Test("a hostile name is one path segment; arrays go in bracket notation")
    func routeAndQuery() throws {
        let name = "../a?b#c d/é"
        let route = GitHub().get(endpoint: "/users/\(name)/repos")
        // GET https://api.github.com/users/..%2Fa%3Fb%23c%20d%2F%C3%A9/repos

        let request = try route.makeURLRequest(parameters: URLParameters(["page": 2, "tags": ["a", "b"]]))
        // …/repos?page=2&tags%5B%5D=a&tags%5B%5D=b

        #expect(request.httpMethod == "GET")
        #expect(
            request.url?.absoluteString
                == "https://api.github.com/users/..%2Fa%3Fb%23c%20d%2F%C3%A9/repos?page=2&tags%5B%5D=a&tags%5B%5D=b"
        )
    }

    @Test("a heterogeneous nested literal, given its type")
    func heterogeneousLiteral() throws {
        let filter = URLParameters(["filter": ["min": 2, "name": "x"] as [String: any Sendable]])
        let request = try Route.get("https://api.example.com/search").makeURLRequest(parameters: filter)
        #expect(request.url?.query == "filter%5Bmin%5D=2&filter%5Bname%5D=x")
    }
}
