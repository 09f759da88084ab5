import Foundation
import OspreyTesting

/// A loopback server that plays the shop's API: products 1 to 9 and their reviews, a 404 for
/// product 0, and product 99, whose answer takes ten seconds (for cancellation). Every request
/// goes through ``overlap``, which shows how many were in flight at once.
struct FakeStore {
    /// The product that does not exist.
    static let missingProduct = 0
    /// The product whose answer takes ten seconds.
    static let slowProduct = 99

    let server: LoopbackServer
    let overlap = Overlap()

    /// Starts the server on 127.0.0.1 and an ephemeral port.
    init() throws {
        let server = try LoopbackServer()
        let overlap = self.overlap
        self.server = server
        server.route("GET", "/products/:id") { request in
            overlap.enter()
            defer { overlap.leave() }
            switch Int(request.pathParameters["id"] ?? "") {
            case Self.slowProduct:
                return .json(#"{"id": 99, "name": "Slow"}"#).delayingHead(by: 10)
            case let id? where (1...9).contains(id):
                return .json(#"{"id": \#(id), "name": "Product \#(id)"}"#)
            default:
                return .json(#"{"message": "no such product"}"#, status: 404)
            }
        }
        server.route("GET", "/products/:id/reviews") { _ in
            overlap.enter()
            defer { overlap.leave() }
            return .json(#"[{"author": "ada", "stars": 5}, {"author": "alan", "stars": 4}]"#)
        }
    }

    /// The URL to give the client.
    var baseURL: String { server.baseURL.absoluteString }

    /// Stops the server.
    func stop() {
        server.stop()
    }
}
