import Osprey
import Testing

@Suite("Endpoint: values are encoded for where they appear")
struct EndpointTests {
    static let hostile = "../a?b#c d/é"

    static let cases: [(name: String, endpoint: Endpoint, expected: String)] = [
        (
            "a path value is one encoded segment", "/users/\(hostile)/repos",
            "/users/..%2Fa%3Fb%23c%20d%2F%C3%A9/repos"
        ),
        ("a dot segment is encoded", "/a/\(".")/\("..")/b", "/a/%2E/%2E%2E/b"),
        ("reserved characters in a segment", "/x/\("+&=;,:@%")", "/x/%2B%26%3D%3B%2C%3A%40%25"),
        ("a trailing slash is kept", "/users/\("ada")/", "/users/ada/"),
        ("numbers interpolate plainly", "/items/\(42)", "/items/42"),
        (
            "a query value is one encoded component", "/search?q=\("a&b=c+d #")&n=\(1)",
            "/search?q=a%26b%3Dc%2Bd%20%23&n=1"
        ),
        (
            "a leading base URL is verbatim", "\("https://host/v2")/products/\("a b")",
            "https://host/v2/products/a%20b"
        ),
        (
            "a host is verbatim", "https://\("api.example.com:8080")/x/\("y/z")",
            "https://api.example.com:8080/x/y%2Fz"
        ),
        ("a leading value that is no URL is a segment", "\("a/b")/details", "a%2Fb/details"),
        ("raw: keeps a value verbatim", "/files/\(raw: "a/b/c.txt")", "/files/a/b/c.txt"),
        (
            "segments: encodes each and joins with /", "/files/\(segments: ["a b", "c/d"])",
            "/files/a%20b/c%2Fd"
        ),
        (
            "a protocol-relative value stays inside the path", "/proxy/\("//evil.example/x")",
            "/proxy/%2F%2Fevil.example%2Fx"
        ),
        ("a literal without values is as written", "/plain/path?x=1", "/plain/path?x=1"),
    ]

    @Test("encodes", arguments: cases)
    func encodes(name: String, endpoint: Endpoint, expected: String) {
        #expect(endpoint.rawValue == expected, "\(name)")
    }

    @Test("the encoded segment decodes back to the original value")
    func roundTrip() {
        let endpoint: Endpoint = "/users/\(Self.hostile)"
        let segment = endpoint.rawValue.split(separator: "/").last.map(String.init)
        #expect(segment?.removingPercentEncoding == Self.hostile)
    }

    @Test("verbatim text is used as given")
    func verbatim() {
        #expect(Endpoint(verbatim: "/a b/../c").rawValue == "/a b/../c")
    }
}
