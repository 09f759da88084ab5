import Osprey
import Testing

/// Which overload a literal picks is decided at compile time and silently: these tests fail if
/// an interpolated literal ever reaches a verbatim (raw `String`) overload.
@Suite("Route and BaseAPI: literals take the safe overloads, String values the verbatim ones")
struct RouteTests {
    struct API: BaseAPI {
        var baseURL = "https://api.example.com/v2"
    }

    let name = "../x y"

    @Test("Route.get with an interpolated literal encodes the value")
    func routeLiteral() {
        #expect(Route.get("https://h/users/\(name)").url == "https://h/users/..%2Fx%20y")
        #expect(Route.post("https://h/users/\(name)").method == .post)
        let route: Route = .delete("https://h/users/\(name)")
        #expect(route.url == "https://h/users/..%2Fx%20y")
        #expect(route.method == .delete)
    }

    @Test("Route.get with a String value uses it verbatim, as in the original Osprey")
    func routeString() {
        let base = "https://h"
        let path = "/users/../x y"
        #expect(Route.get(base + path).url == "https://h/users/../x y")
        let url: String = "https://h/a/b"
        #expect(Route.put(url).url == url)
        #expect(Route.get(url[...]).url == url)
    }

    @Test(
        "every method helper sets its method",
        arguments: [
            (Route.get("https://h"), HTTPMethod.get), (.post("https://h"), .post), (.put("https://h"), .put),
            (.patch("https://h"), .patch), (.delete("https://h"), .delete), (.head("https://h"), .head),
            (.options("https://h"), .options), (.method("PURGE", "https://h"), HTTPMethod("PURGE")),
        ])
    func methods(route: Route, method: HTTPMethod) {
        #expect(route.method == method)
    }

    @Test("BaseAPI endpoints: literals are encoded, String values verbatim, joined with one slash")
    func baseAPI() {
        let api = API()
        #expect(
            api.get(endpoint: "/users/\(name)/repos").url
                == "https://api.example.com/v2/users/..%2Fx%20y/repos")
        let path = "users/a b"
        #expect(api.get(endpoint: path).url == "https://api.example.com/v2/users/a b")
        #expect(api.post(endpoint: "/products/").url == "https://api.example.com/v2/products/")
        #expect(api.patch(endpoint: "products").method == .patch)
        #expect(api.get(endpoint: "/x").baseURL == api.baseURL)
    }

    @Test(
        "joins base and endpoint with exactly one slash",
        arguments: [
            ("https://h", "/p", "https://h/p"), ("https://h/", "p", "https://h/p"),
            ("https://h//", "//p", "https://h/p"),
            ("https://h/v2", "/p/", "https://h/v2/p/"), ("https://h/v2/", "p/q", "https://h/v2/p/q"),
            ("https://h", "", "https://h"), ("https://h/v2", "/", "https://h/v2/"),
            ("https://h", "?a=1", "https://h?a=1"),
        ])
    func join(base: String, endpoint: String, expected: String) {
        #expect(API(baseURL: base).get(endpoint: endpoint).url == expected)
    }

    @Test(
        "a value that would change the host stays on the base URL's host",
        arguments: [
            "//evil.example/x", "http://evil.example/x", "https://evil.example", "@evil.example/x",
        ])
    func cannotChangeHost(value: String) throws {
        let api = API()
        let interpolated = try api.get(endpoint: "/\(value)").makeURLRequest()
        #expect(interpolated.url?.host == "api.example.com")
        // Even a raw String endpoint cannot leave the origin: it is joined as a path.
        let raw = try api.get(endpoint: value).makeURLRequest()
        #expect(raw.url?.host == "api.example.com")
    }
}
