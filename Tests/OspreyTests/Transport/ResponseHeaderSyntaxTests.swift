import Foundation
import Osprey
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Response header lines that are legal but unusual (catalogue L13, L14).
@Suite("Transport: unusual response header lines")
struct ResponseHeaderSyntaxTests {
    /// RFC 9112 §5.1 makes the space after the colon optional. Darwin parses such a line; libcurl
    /// under FoundationNetworking 6.3 and earlier fails the whole response with error -1 (the
    /// Transports article lists it under "Known limits of URLSessionTransport on Linux");
    /// libcurl driven by CurlTransport reads it.
    /// If a toolchain fixes it, this test says so.
    @Test("a header without a space after the colon (L13)")
    func headerWithoutSpace() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/compact") { _ in .text("hello").adding(rawHeaderLine: "X-Compact:yes") }
        let api = TestAPI(server)
        let promise: Promise<APIResponse<String>> = api.request(route: api.get(endpoint: "/compact"))
        let result = await promise.result
        #if canImport(FoundationNetworking)
            // libcurl driven directly (CurlTransport) reads the line, as Darwin does.
            let readsCompactLines = api.transport is CurlTransport
        #else
            let readsCompactLines = true
        #endif
        if readsCompactLines {
            let response = try result.get()
            #expect(response.value == "hello")
            #expect(response.headers["X-Compact"] == "yes")
        } else {
            guard case .failure(let error as APIError) = result, case .transport = error else {
                Issue.record("expected the documented transport error, got \(result)")
                return
            }
        }
    }

    @Test("several Set-Cookie lines all reach the caller, and each cookie can be read (L14)")
    func severalSetCookies() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/cookies") { _ in
            .text("ok")
                .adding(header: "Set-Cookie", "a=1; Path=/")
                .adding(header: "Set-Cookie", "b=2; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT")
        }
        let api = TestAPI(server)
        let response: APIResponse<Data> = try await api.request(route: api.get(endpoint: "/cookies")).value
        let joined = try #require(response.headers["Set-Cookie"])
        #expect(joined.contains("a=1") && joined.contains("b=2"), "\(joined)")
        let url = try #require(response.request.url)
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": joined], for: url)
        #expect(cookies.map(\.name).sorted() == ["a", "b"])
        #expect(cookies.map(\.value).sorted() == ["1", "2"])
    }
}
