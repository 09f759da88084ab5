import Foundation
import Osprey
import Testing

// Osprey 0.14's README's "Making Requests" snippets that do not need an API client, as written
// there (two documented differences: `override func preprocess()`, and subclasses restating
// `@unchecked Sendable`, which Swift 6 requires). The AbstractAPI snippets run with the pipeline.

struct Product: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

final class UserManager: Sendable {
    static let shared = UserManager()
    func getToken() throws -> String { "token-from-keychain" }
}

class AuthenticatedJSONParameters: JSONParameters, @unchecked Sendable {
    override func preprocess() throws {
        headers["Authentication"] = try UserManager.shared.getToken()
    }
}

@Suite("README: Making Requests")
struct ReadmeMakingRequestsTests {
    let product = Product(id: 7, name: "Lamp")
    let token = "abc"

    @Test("Routes: every common method")
    func routes() {
        let routes = [
            Route.get("https://api/users"), Route.post("https://api/users"), Route.patch("https://api/users"),
            Route.delete("https://api/users"), Route.put("https://api/users"),
            Route.head("https://api/users"),
            Route.options("https://api/users"),
        ]
        #expect(
            routes.map(\.method.rawValue) == ["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"])
    }

    @Test("URL parameters, JSON and headers on every parameters type")
    func parameters() throws {
        let params = URLParameters(["page": 1])
        #expect(
            try Route.get("https://myapi/products").makeURLRequest(parameters: params).url?.query == "page=1")

        let json = JSONParameters(product, headers: ["Authentication": "Token \(token)"])
        let urlParams = URLParameters(headers: ["Authentication": "Token \(token)"])
        let jsonRequest = try Route.post("https://myapi/products/").makeURLRequest(parameters: json)
        #expect(jsonRequest.value(forHTTPHeaderField: "Authentication") == "Token abc")
        #expect(jsonRequest.httpBody == Data(#"{"id":7,"name":"Lamp"}"#.utf8))
        #expect(urlParams.headers["Authentication"] == "Token abc")
    }

    @Test("Multipart: a Part from data, and headers on MultipartParameters")
    func multipart() throws {
        let data = Data([1, 2, 3])
        let part = Part(
            mimeType: .png, data: data, attributes: ["name": "picture", "filename": UUID().uuidString])
        let params = MultipartParameters(parts: [part])
        let multipartParams = MultipartParameters(product, headers: ["Authentication": "Token \(token)"])
        let request = try Route.patch("https://myapi/products/\(product.id)/").makeURLRequest(
            parameters: params)
        #expect(
            request.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data; boundary=")
                == true)
        #expect(multipartParams.headers["Authentication"] == "Token abc")
    }

    @Test("a parameters subclass prepares its headers in preprocess()")
    func authenticatedParameters() throws {
        let params: any RequestParameters = AuthenticatedJSONParameters(product)
        // The pipeline calls preprocess() on its request queue before building; here by hand.
        try params.preprocess()
        let request = try Route.post("https://myapi/products").makeURLRequest(parameters: params)
        #expect(request.value(forHTTPHeaderField: "Authentication") == "token-from-keychain")
    }
}
