import Foundation
import Osprey
import Testing

@Suite("URLParameters: RFC 3986 query encoding")
struct URLParametersTests {
    static let cases: [(name: String, parameters: [String: any Sendable], expected: String)] = [
        ("plus is data, not a space", ["q": "a+b"], "q=a%2Bb"),
        ("delimiters are escaped", ["k": "& = # % ; ,"], "k=%26%20%3D%20%23%20%25%20%3B%20%2C"),
        ("keys are escaped too", ["a&b=c": "1"], "a%26b%3Dc=1"),
        ("unicode is UTF-8 escaped", ["name": "Zoë 日本"], "name=Zo%C3%AB%20%E6%97%A5%E6%9C%AC"),
        ("unreserved characters stay", ["k": "AZaz09-._~"], "k=AZaz09-._~"),
        ("keys are sorted", ["b": 2, "a": 1, "c": 3], "a=1&b=2&c=3"),
        ("nil values are left out", ["a": String?.none, "b": "x"], "b=x"),
        (
            "arrays and nested dictionaries use brackets",
            ["page": 1, "tags": ["a", "b"], "filter": ["min": 2, "name": "x"] as [String: any Sendable]],
            "filter%5Bmin%5D=2&filter%5Bname%5D=x&page=1&tags%5B%5D=a&tags%5B%5D=b"
        ),
        ("numbers", ["i": -3, "d": 2.5, "w": 2.0, "u": UInt8(7)], "d=2.5&i=-3&u=7&w=2"),
        ("booleans are literal by default", ["t": true, "f": false], "f=false&t=true"),
        (
            "a date is ISO 8601 by default", ["at": Date(timeIntervalSince1970: 0)],
            "at=1970-01-01T00%3A00%3A00.000Z"
        ),
        ("empty parameters add no query", [:], ""),
    ]

    @Test("encodes", arguments: cases)
    func encodes(name: String, parameters: [String: any Sendable], expected: String) throws {
        let query = try query(URLParameters(parameters))
        #expect((query ?? "") == expected, "\(name)")
    }

    @Test("a literal mixing values, arrays and a nested dictionary compiles and encodes")
    func literal() throws {
        let parameters = URLParameters(["page": 1, "tags": ["a", "b"], "filter": ["min": 2]])
        #expect(try query(parameters) == "filter%5Bmin%5D=2&page=1&tags%5B%5D=a&tags%5B%5D=b")
    }

    @Test(
        "array styles",
        arguments: [
            (ParameterEncoding.ArrayStyle.brackets, "t%5B%5D=a&t%5B%5D=b"),
            (.indexed, "t%5B0%5D=a&t%5B1%5D=b"),
            (.repeatedKey, "t=a&t=b"), (.commaSeparated, "t=a%2Cb"),
        ])
    func arrayStyles(style: ParameterEncoding.ArrayStyle, expected: String) throws {
        var encoding = ParameterEncoding()
        encoding.arrayStyle = style
        #expect(try query(URLParameters(["t": ["a", "b"]]), encoding: encoding) == expected)
    }

    @Test("bool and date styles are configurable")
    func styles() throws {
        var encoding = ParameterEncoding()
        encoding.boolStyle = .numeric
        encoding.dateStyle = .secondsSince1970
        let date = Date(timeIntervalSince1970: 1_714_564_800)
        #expect(try query(URLParameters(["b": true, "d": date]), encoding: encoding) == "b=1&d=1714564800")
        encoding.dateStyle = .millisecondsSince1970
        #expect(try query(URLParameters(["d": date]), encoding: encoding) == "d=1714564800000")
        encoding.dateStyle = .custom { _ in "custom day" }
        #expect(try query(URLParameters(["d": date]), encoding: encoding) == "d=custom%20day")
    }

    @Test("keys can be mapped to snake_case or by a function")
    func keyMapping() throws {
        var encoding = ParameterEncoding()
        encoding.keyMapping = .snakeCase
        let parameters = URLParameters(["pageSize": 10, "userID": 1, "filter": ["minPrice": 2]])
        #expect(try query(parameters, encoding: encoding) == "filter%5Bmin_price%5D=2&page_size=10&user_id=1")
        encoding.keyMapping = .custom { $0.uppercased() }
        #expect(try query(URLParameters(["a": 1]), encoding: encoding) == "A=1")
    }

    @Test("parameters' own encoding wins over the API's")
    func ownEncoding() throws {
        var own = ParameterEncoding()
        own.arrayStyle = .repeatedKey
        #expect(try query(URLParameters(["t": ["a", "b"]], encoding: own)) == "t=a&t=b")
    }

    @Test("a static query in the route is kept and the parameters follow; a fragment stays last")
    func staticQuery() throws {
        let route = Route.get("https://h/search?sort=asc#top")
        let request = try route.makeURLRequest(parameters: URLParameters(["q": "x y"]))
        #expect(request.url?.absoluteString == "https://h/search?sort=asc&q=x%20y#top")
    }

    @Test("a value with no encoding fails with a clear error")
    func unsupported() {
        struct Opaque: Sendable {}
        #expect(throws: APIError.self) { try query(URLParameters(["x": Opaque()])) }
    }

    @Test("string and integer enums encode their raw values")
    func enums() throws {
        enum Sort: String, Sendable { case newest }
        enum Level: Int, Sendable { case high = 3 }
        #expect(try query(URLParameters(["s": Sort.newest, "l": Level.high])) == "l=3&s=newest")
    }
}
