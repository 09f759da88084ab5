import Foundation
import Osprey
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Building the URLRequest: what must never reach the wire is refused first")
struct URLRequestFactoryTests {
    @Test(
        "methods that are not tokens are refused",
        arguments: [
            "GET /x HTTP/1.1\r\nX-Smuggle: 1\r\nFoo:", "GE T", "", "GET\n", "PÖST",
        ])
    func badMethods(method: String) {
        #expect(throws: APIError.self) {
            try Route.method(HTTPMethod(method), "https://h/p").makeURLRequest()
        }
    }

    @Test("custom token methods are sent as given")
    func customMethod() throws {
        #expect(try Route.method("PURGE", "https://h/p").makeURLRequest().httpMethod == "PURGE")
    }

    @Test(
        "invalid or non-HTTP URLs are refused, never a crash",
        arguments: [
            "", "not a url", "/relative/only", "ftp://h/file", "file:///etc/passwd", "https://", "http:// h/",
        ])
    func badURLs(url: String) {
        #expect(throws: APIError.self) { try Route.get(url).makeURLRequest() }
    }

    @Test("header injection through parameters is refused")
    func headerInjection() {
        let parameters = URLParameters(headers: ["X-Test": "a\r\nX-Injected: yes"])
        #expect(throws: APIError.self) { try Route.get("https://h/p").makeURLRequest(parameters: parameters) }
    }

    @Test(
        "GET and HEAD never carry a Content-Type, even one set by hand", arguments: [HTTPMethod.get, .head])
    func noContentTypeOnGet(method: HTTPMethod) throws {
        let parameters = URLParameters(["a": 1], headers: ["Content-Type": "application/json"])
        let request = try Route.method(method, "https://h/p").makeURLRequest(parameters: parameters)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(request.httpBody == nil)
    }

    @Test("a body always gets an explicit Content-Type")
    func explicitContentType() throws {
        struct Raw: RequestParameters {
            var headers: HTTPHeaders = [:]
            func encode(into draft: inout RequestDraft) throws { draft.body = Data([1, 2, 3]) }
        }
        let request = try Route.post("https://h/p").makeURLRequest(parameters: Raw())
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test("API headers are sent and the parameters' own win")
    func headerPrecedence() throws {
        let request = try Route.get("https://h/p").makeURLRequest(
            parameters: URLParameters(headers: ["accept": "text/csv"]),
            headers: ["Accept": "application/json", "User-Agent": "osprey-tests"]
        )
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/csv")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == "osprey-tests")
    }

    @Test("a per-request timeout is rounded up to whole seconds for URLSession")
    func timeout() throws {
        let request = try Route.get("https://h/p").makeURLRequest(parameters: URLParameters(timeout: 0.5))
        #expect(request.timeoutInterval == 1)
    }

    @Test("error descriptions hide query values and user info")
    func redactedErrors() {
        do {
            _ = try Route.get("ftp://user:pw@h/p?token=secret").makeURLRequest()
            Issue.record("expected an error")
        } catch {
            #expect(!"\(error)".contains("secret"))
            #expect(!"\(error)".contains("pw"))
        }
    }
}
