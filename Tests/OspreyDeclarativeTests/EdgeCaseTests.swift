import Foundation
import Osprey
import OspreyTesting
import Testing

/// Declarations and calls a first review found wanting, each kept working here.
enum EdgeCases {
    enum Kind: String, Sendable {
        case fast, slow
    }

    struct Profile: Codable, Sendable, Equatable {
        var displayName: String
        var joined: Date
    }

    @API
    @Mock
    @Multipart
    @Authorization(.bearer("static"))
    @Headers(["X-Version": "1"])
    protocol Files {
        // Keywords as parameter names; a GET's parameters are query items even under @Multipart.
        @GET("/search")
        func search(for: String, default: Int, in scope: String) async throws -> [String]

        @GET("/kinds")
        func kinds(
            kind: Header<Kind>, accept: Header<[String]>, authorization: Header<String>,
            xVersion: Header<String>)
            async throws

        @POST("/upload")
        func upload(profileImage: Part) async throws

        @available(macOS 10.15, iOS 13, *)
        @GET("/pair")
        func labelled() async throws -> (user: User, response: Response)

        @GET("/pair")
        func labelledPromise() -> Osprey.Promise<(user: User, response: Response)>

        @GET("/raw")
        func rawPair() async throws -> (Data, Response)

        @GET("/raw")
        func textPair() async throws -> (String, Response)

        @GET("/raw")
        func maybeText() async throws -> String?

        @GET("/ids")
        func ids(_ ids: Int..., value: some Encodable & Sendable) async throws
    }

    // An opaque type inside a role wrapper: the mock's handler takes the existential.
    @API
    @Mock
    protocol Notes {
        @POST("/notes")
        func post(note: Body<some Encodable & Sendable>, tags: Query<[some Encodable & Sendable]?>)
            async throws
    }

    @API
    @KeyMapping(.snakeCase)
    @JSON(encoder: .iso8601)
    protocol Profiles {
        @PUT("/profile")
        func replace(profile: Body<Profile>) async throws

        @PUT("/profile/optional")
        func replaceMaybe(profile: Body<Profile?>) async throws
    }
}

@Suite("Declarative APIs: edge cases")
struct EdgeCaseTests {
    @Test("keyword parameter names; GET parameters are query items under a protocol's @Multipart")
    func keywordsAndQueries() async throws {
        let server = try makeServer(answering: "[]")
        defer { server.stop() }
        _ = try await EdgeCases.FilesAPI(provider: server.provider).search(for: "a b", default: 3, in: "all")
        #expect(server.onlyRequest?.target == "/search?default=3&for=a%20b&scope=all")
    }

    @Test("header values: raw-value enums, lists, and arguments that replace static headers")
    func headers() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await EdgeCases.FilesAPI(provider: server.provider).kinds(
            kind: .slow, accept: ["a", "b"], authorization: "Bearer dynamic", xVersion: "2")
        let request = try #require(server.onlyRequest)
        #expect(request.value(forHeader: "Kind") == "slow")
        #expect(request.value(forHeader: "Accept") == "a, b")
        #expect(request.values(forHeader: "Authorization") == ["Bearer dynamic"])
        #expect(request.values(forHeader: "X-Version") == ["2"])
    }

    @Test("labelled tuples, raw pairs and optional text")
    func results() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/pair") { _ in .json(#"{"name": "josh"}"#) }
        server.route("/raw") { _ in .text("plain, not JSON") }
        let api = EdgeCases.FilesAPI(provider: server.provider)
        let labelled = try await api.labelled()
        #expect(labelled.user == User(name: "josh"))
        #expect(labelled.response.statusCode == 200)
        #expect(try await api.labelledPromise().value.user == User(name: "josh"))
        #expect(try await api.rawPair().0 == Data("plain, not JSON".utf8))
        #expect(try await api.textPair().0 == "plain, not JSON")
        #expect(try await api.maybeText() == "plain, not JSON")
        server.route("/raw") { _ in LoopbackServer.Response(status: 204) }
        #expect(try await api.maybeText() == nil)
    }

    @Test("a modifier's fields join a multipart body; part names follow the key mapping")
    func modifierAndParts() async throws {
        let server = try makeServer()
        defer { server.stop() }
        var configuration = APIConfiguration()
        configuration.encoding.keyMapping = .snakeCase
        let provider = Provider(baseURL: server.baseURL.absoluteString, configuration: configuration)
            .modifyRequests { $0.addField("clientID", value: "cid") }
        try await EdgeCases.FilesAPI(provider: provider).upload(
            profileImage: Part(name: "", data: Data("png".utf8), filename: "me.png"))
        let body = try #require(server.onlyRequest?.bodyText)
        #expect(body.contains(#"name="client_id""#), "\(body)")
        #expect(body.contains(#"name="profile_image"; filename="me.png""#), "\(body)")
        #expect(body.contains("png"))
    }

    @Test(
        "a Body<T> keeps the key mapping with an encoder of your own, and a modifier's fields merge into it")
    func bodyWithEncoderAndModifier() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let provider = server.provider.modifyRequests { $0.addField("clientID", value: "cid") }
        let profile = EdgeCases.Profile(displayName: "Josh", joined: Date(timeIntervalSince1970: 0))
        try await EdgeCases.ProfilesAPI(provider: provider).replace(profile: profile)
        let body = try #require(try server.lastJSONBody() as? [String: String])
        #expect(body == ["display_name": "Josh", "joined": "1970-01-01T00:00:00Z", "client_id": "cid"])
    }

    @Test("a nil optional body sends no body")
    func nilBody() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await EdgeCases.ProfilesAPI(provider: server.provider).replaceMaybe(profile: nil)
        #expect(server.onlyRequest?.body.isEmpty == true)
        #expect(server.onlyRequest?.value(forHeader: "Content-Type") == nil)
    }

    @Test("a modifier's field beside a body that is not an object is a clear error, not a crash")
    func fieldBesideArrayBody() async throws {
        struct Items: RequestModifier {
            func modify(req: inout RequestBuilder) throws {
                req.setBody(["a", "b"])
                req.addField("extra", value: 1)
            }
        }
        let server = try makeServer()
        defer { server.stop() }
        let provider = Provider(baseURL: server.baseURL.absoluteString, modifiers: [Items()])
        let error = await #expect(throws: APIError.self) {
            try await EdgeCases.ProfilesAPI(provider: provider).replaceMaybe(profile: nil)
        }
        guard case .encodingFailed(let reason, _) = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("not an object"))
        #expect(server.requests.isEmpty)
    }

    @Test("variadic and opaque parameters, in the client and the mock")
    func variadicAndOpaque() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await EdgeCases.FilesAPI(provider: server.provider).ids(1, 2, value: 7)
        #expect(server.onlyRequest?.target == "/ids?ids%5B%5D=1&ids%5B%5D=2&value=7")
        let mock = EdgeCases.FilesMock()
        let seen = Locked<[Int]>([])
        mock.mockIds { ids, _ in seen.withLock { $0 = ids } }
        try await mock.ids(4, 5, value: "x")
        #expect(seen.withLock { $0 } == [4, 5])
    }

    @Test("an opaque type inside Body<…> or a list, in the client and the mock")
    func opaqueInsideWrappers() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await EdgeCases.NotesAPI(provider: server.provider).post(
            note: EdgeCases.Profile.sample, tags: ["a"])
        #expect(server.onlyRequest?.target == "/notes?tags%5B%5D=a")
        let mock = EdgeCases.NotesMock()
        let seen = Locked<[String]>([])
        mock.mockPost { note, tags in
            let name = (note as? EdgeCases.Profile)?.displayName ?? "?"
            seen.withLock { $0 = [name] + (tags ?? []).map { $0 as? String ?? "?" } }
        }
        try await mock.post(note: EdgeCases.Profile.sample, tags: ["x", "y"])
        #expect(seen.withLock { $0 } == ["Josh", "x", "y"])
    }
}

extension EdgeCases.Profile {
    static let sample = EdgeCases.Profile(displayName: "Josh", joined: Date(timeIntervalSince1970: 0))
}
