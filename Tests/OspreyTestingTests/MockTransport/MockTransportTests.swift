import Foundation
import Osprey
import OspreyTesting
import Testing

/// A client written the Osprey README's way, to test through the mock.
final class RepositoriesAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL = "https://api.example.com"

    struct Repository: Codable, Sendable, Equatable {
        var name: String
    }

    func repositories(of user: String) -> Promise<[Repository]> {
        request(route: get(endpoint: "/users/\(user)/repos"))
    }

    func create(_ repository: Repository) -> Promise<Repository> {
        request(route: post(endpoint: "/repos"), parameters: JSONParameters(repository))
    }

    func search(_ query: String) -> Promise<[Repository]> {
        request(route: get(endpoint: "/search"), parameters: URLParameters(["q": query]))
    }
}

@Suite("MockTransport: a client tested without a socket")
struct MockTransportTests {
    @Test("routes with path parameters answer; requests are recorded with their bodies")
    func routes() async throws {
        let mock = MockTransport()
        mock.route("GET", "/users/:name/repos") { request in
            .json(#"[{"name": "\#(request.pathParameters["name"]!)"}]"#)
        }
        mock.route("POST", "/repos") { request in .json(request.body, status: 201) }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        #expect(try await api.repositories(of: "a b").value == [.init(name: "a b")])
        #expect(try await api.create(.init(name: "new")).value == .init(name: "new"))
        let requests = mock.requests
        #expect(requests.map(\.method) == ["GET", "POST"])
        #expect(requests[0].target == "/users/a%20b/repos")
        #expect(requests[0].value(forHeader: "Accept") == "application/json")
        #expect(try requests[1].decodedBody(as: RepositoriesAPI.Repository.self) == .init(name: "new"))
        #expect(requests[1].value(forHeader: "content-type") == "application/json")
    }

    @Test("an unrouted request fails with an error naming it")
    func unrouted() async throws {
        let mock = MockTransport()
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        let result = await api.search("swift").result
        guard case .failure(let error as APIError) = result, case .transport(let underlying, _) = error else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect("\(underlying)" == "MockTransport has no route for GET /search?q=swift")
    }

    @Test("a status is validated and a transport failure is a transport error, through the pipeline")
    func faults() async throws {
        let mock = MockTransport()
        mock.route("/users/:name/repos") { _ in .json(#"{"message": "nope"}"#, status: 404) }
        mock.route("/search") { _ in .failure(URLError(.notConnectedToInternet)) }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        let notFound = await api.repositories(of: "x").result
        guard case .failure(let error as APIError) = notFound else {
            Issue.record("expected an APIError")
            return
        }
        #expect(error.statusCode == 404)
        let offline = await api.search("x").result
        guard case .failure(let offlineError as APIError) = offline,
            case .transport(let underlying, _) = offlineError
        else {
            Issue.record("expected a transport error, got \(offline)")
            return
        }
        #expect((underlying as? URLError)?.code == .notConnectedToInternet)
    }

    @Test("a sequence fails twice then succeeds: a retry policy gets there")
    func sequence() async throws {
        let mock = MockTransport()
        mock.route(
            "GET", "/search",
            replies: [.status(503), .failure(URLError(.networkConnectionLost)), .json("[]")])
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        api.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0.001)
        #expect(try await api.search("x").value == [])
        #expect(mock.requests.count == 3)
    }

    @Test("a delayed reply arrives late; one that never comes is ended by cancel or by the timeout")
    func delaysAndNever() async throws {
        let mock = MockTransport()
        mock.route("/search") { _ in Reply.json("[]").delayed(by: 0.2) }
        mock.route("/users/:name/repos") { _ in .never }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        let start = Date()
        #expect(try await api.search("x").value == [])
        #expect(Date().timeIntervalSince(start) >= 0.2)

        let hanging = api.repositories(of: "x")
        hanging.cancel()
        #expect(await hanging.result.isCancellationResult)

        api.configuration.timeout = 0.2
        guard case .failure(let error as APIError) = await api.repositories(of: "x").result,
            case .timedOut = error
        else {
            Issue.record("expected timedOut")
            return
        }
    }

    @Test("form bodies can be read back")
    func formFields() async throws {
        let mock = MockTransport()
        mock.route("POST", "/login") { _ in .status(204) }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        let login: Promise<Void> = api.request(
            route: api.post(endpoint: "/login"),
            parameters: FormURLParameters(["user": "a b", "pass": "p&w"]))
        try await login.value
        #expect(
            mock.requests.first?.formFields == [
                .init(name: "pass", value: "p&w"), .init(name: "user", value: "a b"),
            ])
    }

    typealias Reply = MockTransport.Reply
}

extension Result {
    fileprivate var isCancellationResult: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
