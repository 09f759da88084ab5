import Foundation
import OspreyTesting

/// A loopback server scripted like the API the demo talks to: no internet needed.
func makeDemoServer() throws -> LoopbackServer {
    let server = try LoopbackServer()
    let users = ["osprey": #"{"login": "osprey", "name": "Osprey"}"#]
    server.route("GET", "/users/:login") { request in
        guard let user = users[request.pathParameters["login"] ?? ""] else {
            return .json(#"{"error": {"code": "not_found", "message": "no such user"}}"#, status: 404)
        }
        return .json(#"{"data": \#(user)}"#)
    }
    server.route("GET", "/users/:login/repos") { _ in
        .json(
            #"{"data": [{"name": "osprey", "stars": 42}, {"name": "promises", "stars": 7}], "meta": {"count": 2}}"#
        )
    }
    server.route("POST", "/login") { request in
        let fields = Dictionary(request.formFields.map { ($0.name, $0.value ?? "") }) { first, _ in first }
        guard fields["username"] == "ada", fields["password"] == "s3cret & safe" else {
            return .json(#"{"error": {"code": "unauthorized", "message": "wrong password"}}"#, status: 401)
        }
        return .json(#"{"data": {"token": "form-token"}}"#)
    }
    server.route("POST", "/sessions") { request in
        guard let credentials = try? request.decodedBody(as: Credentials.self), credentials.username == "ada"
        else {
            return .json(#"{"error": {"code": "bad_request", "message": "who are you?"}}"#, status: 400)
        }
        return .json(#"{"data": {"token": "json-token"}}"#)
    }
    server.route("POST", "/uploads") { request in
        .json(#"{"data": {"receivedBytes": \#(request.body.count)}}"#, status: 201)
    }
    // Busy twice, then fine: what a retry policy is for.
    server.route("GET", "/status") { [unowned server] _ in
        server.requests.filter { $0.path == "/status" }.count <= 2
            ? .json(#"{"error": {"code": "busy", "message": "try again"}}"#, status: 503)
            : .text("all good")
    }
    server.route("GET", "/search") { _ in .json(#"{"data": "too late"}"#).delayingHead(by: 3) }
    // An answer written a word at a time, as server-sent events.
    server.route("POST", "/chat") { _ in
        .streaming(headers: [.init("Content-Type", "text/event-stream")]) { body in
            for word in ["Ospreys ", "eat ", "fish."] {
                body.write("data: \(word)\n\n")
                body.pause(for: 0.05)
            }
        }
    }
    return server
}
