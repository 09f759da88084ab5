import Foundation
import OspreyTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The demo grows with the framework. Today it shows the foundation every other part is tested
// on: a scripted loopback server answering a request, with no internet involved.

let server = try LoopbackServer()
defer { server.stop() }
server.route("GET", "/users/:name/repos") { request in
    let name = request.pathParameters["name"] ?? "?"
    return .json(#"[{"name": "\#(name)-first"}, {"name": "\#(name)-second"}]"#)
}

struct Repository: Decodable {
    var name: String
}

let session = URLSession(configuration: .ephemeral)
let url = server.url("/users/osprey/repos")
do {
    let data: Data = try await withCheckedThrowingContinuation { continuation in
        session.dataTask(with: url) { data, _, error in
            if let error {
                continuation.resume(throwing: error)
            } else {
                continuation.resume(returning: data ?? Data())
            }
        }.resume()
    }
    let repositories = try JSONDecoder().decode([Repository].self, from: data)
    print("GET \(url) -> \(repositories.map(\.name))")
    print("The server saw: \(server.requests.map { "\($0.method) \($0.target)" })")
    session.finishTasksAndInvalidate()
} catch {
    print("The request failed: \(error)")
    exit(1)
}
