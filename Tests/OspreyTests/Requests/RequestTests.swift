import Foundation
import Osprey
import Testing

struct Credentials: Encodable, Sendable {
    var username: String
    var password: String
}

struct Session: Decodable, Sendable {
    var token: String
}

// `login` is the typed request of the "Building requests" article, as written there.
extension Request {
    static func login(_ body: Credentials) -> Request<Session> {
        .post("login", body: body)
    }

    static func user(named name: String) -> Request<Data> {
        .get("users/\(name)", query: ["fields": ["id", "name"]])
    }
}

@Suite("Request<Output>: typed request values")
struct RequestTests {
    @Test("a static factory makes a URLRequest relative to a base URL")
    func login() throws {
        // As at a call site that expects a `Request<Session>`, such as `api.request(.login(…))`.
        let login: Request<Session> = .login(Credentials(username: "ada", password: "pw"))
        let request = try login.makeURLRequest(relativeTo: "https://api.example.com/v1/")
        #expect(request.url?.absoluteString == "https://api.example.com/v1/login")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(
            String(decoding: request.httpBody ?? Data(), as: UTF8.self)
                == #"{"password":"pw","username":"ada"}"#)
    }

    @Test("interpolated endpoints are encoded and query parameters appended")
    func user() throws {
        let request = try Request<Data>.user(named: "a/b").makeURLRequest(relativeTo: "https://h")
        #expect(request.url?.absoluteString == "https://h/users/a%2Fb?fields%5B%5D=id&fields%5B%5D=name")
        #expect(request.httpMethod == "GET")
    }

    @Test("other methods and parameters")
    func others() throws {
        let form = Request<Void>.method(.post, "forms", parameters: FormURLParameters(["a": 1]))
        #expect(try form.makeURLRequest(relativeTo: "https://h").httpBody == Data("a=1".utf8))
        #expect(Request<Void>.delete("x/1").method == .delete)
        #expect(Request<Void>.put("x", body: ["a": 1]).method == .put)
        #expect(Request<Void>.patch("x", body: ["a": 1]).route(relativeTo: "https://h/").url == "https://h/x")
    }
}
