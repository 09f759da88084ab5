import Foundation
import Osprey
import OspreyTesting
import Testing

/// The Papyrus README's "Responses" snippets.
enum Responses {
    @API
    protocol Users {
        @GET("/user")
        func getUser() async throws -> User
    }

    @API
    protocol Bytes {
        @GET("/bytes")
        func getBytes() async throws -> Data?

        // this will throw an error if `GET /image` returns an empty body
        @GET("/image")
        func getImage() async throws -> Data
    }

    @API
    protocol Session {
        @DELETE("/logout")
        func logout() async throws
    }

    @API
    protocol RawUsers {
        @GET("/user")
        func getUser() async throws -> Response
    }

    @API
    protocol BothUsers {
        @GET("/user")
        func getUser() async throws -> (User, Response)
    }
}

@Suite("Papyrus README: responses")
struct ResponsesTests {
    @Test("a Decodable result is decoded from the body")
    func decodable() async throws {
        let server = try makeServer(answering: #"{"name": "josh"}"#)
        defer { server.stop() }
        #expect(try await Responses.UsersAPI(provider: server.provider).getUser() == User(name: "josh"))
    }

    @Test("Data? is nil for an empty body; Data throws for one")
    func data() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/bytes") { _ in LoopbackServer.Response(status: 204) }
        server.route("/image") { _ in LoopbackServer.Response(status: 200) }
        let bytes = Responses.BytesAPI(provider: server.provider)
        #expect(try await bytes.getBytes() == nil)
        await #expect(throws: APIError.self) { try await bytes.getImage() }

        server.route("/bytes") { _ in LoopbackServer.Response(body: Data([0, 1, 2])) }
        server.route("/image") { _ in LoopbackServer.Response(body: Data([255])) }
        #expect(try await bytes.getBytes() == Data([0, 1, 2]))
        #expect(try await bytes.getImage() == Data([255]))
    }

    @Test("no return type: success is all that matters")
    func void() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("DELETE", "/logout") { _ in LoopbackServer.Response(status: 204) }
        try await Responses.SessionAPI(provider: server.provider).logout()
        #expect(server.onlyRequest?.method == "DELETE")
    }

    @Test("Response gives the headers; (User, Response) both")
    func response() async throws {
        let server = try makeServer(answering: #"{"name": "josh"}"#)
        defer { server.stop() }
        server.route("/user") { _ in .json(#"{"name": "josh"}"#).adding(header: "X-Rate-Limit", "10") }
        let users = Responses.RawUsersAPI(provider: server.provider)

        let res = try await users.getUser()
        print("The response had headers \(res.headers)")
        #expect(res.headers["x-rate-limit"] == "10")
        #expect(res.statusCode == 200)
        #expect(res.body == Data(#"{"name": "josh"}"#.utf8))
        #expect(res.request?.url?.path == "/user")

        let (user, response) = try await Responses.BothUsersAPI(provider: server.provider).getUser()
        print("The response status code was: \(response.statusCode!)")
        #expect(user == User(name: "josh"))
        #expect(response.statusCode == 200)
    }

    @Test("errors are APIError, with the request and the response")
    func errors() async throws {
        let server = try makeServer(answering: #"{"error": "nope"}"#, status: 404)
        defer { server.stop() }
        let users = Responses.UsersAPI(provider: server.provider)
        do {
            let user = try await users.getUser()
            Issue.record("expected an error, got \(user)")
        } catch {
            if let error = error as? APIError {
                // Papyrus interpolates the optionals directly, which Swift warns about.
                print(
                    "Error making request \(String(describing: error.request)): \(error.message). "
                        + "Response was: \(String(describing: error.response))")
                #expect(error.statusCode == 404)
                #expect(error.request?.url?.path == "/user")
                #expect(error.response?.statusCode == 404)
                #expect(error.data == Data(#"{"error": "nope"}"#.utf8))
            } else {
                Issue.record("expected an APIError, got \(error)")
            }
        }
    }
}
