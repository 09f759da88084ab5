import Foundation
import Osprey
import Testing

@Suite("JSONParameters and FormURLParameters")
struct BodyParametersTests {
    struct Product: Codable, Sendable, Equatable {
        var id: Int
        var displayName: String
        var addedAt: Date
    }

    let product = Product(id: 1, displayName: "Lamp", addedAt: Date(timeIntervalSince1970: 0))

    @Test("JSON: sorted keys, ISO 8601 dates, application/json")
    func json() throws {
        let request = try Route.post("https://h/products").makeURLRequest(parameters: JSONParameters(product))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(
            String(decoding: request.httpBody ?? Data(), as: UTF8.self)
                == #"{"addedAt":"1970-01-01T00:00:00Z","displayName":"Lamp","id":1}"#
        )
    }

    @Test("JSON: keys follow the API's key mapping")
    func jsonSnakeCase() throws {
        var encoding = ParameterEncoding()
        encoding.keyMapping = .snakeCase
        let request = try Route.post("https://h/p").makeURLRequest(
            parameters: JSONParameters(product), encoding: encoding)
        let body = String(decoding: request.httpBody ?? Data(), as: UTF8.self)
        #expect(body == #"{"added_at":"1970-01-01T00:00:00Z","display_name":"Lamp","id":1}"#)
    }

    @Test("JSON: a custom encoder is used as given")
    func customEncoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let body = try bodyText(JSONParameters(product, encoder: encoder))
        #expect(body == #"{"addedAt":0,"displayName":"Lamp","id":1}"#)
    }

    @Test("JSON: the user's own Content-Type is never overwritten")
    func ownContentType() throws {
        let parameters = JSONParameters(product, headers: ["content-type": "application/vnd.api+json"])
        let request = try Route.post("https://h/p").makeURLRequest(parameters: parameters)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test("JSON on GET or HEAD is refused before anything is sent", arguments: [HTTPMethod.get, .head])
    func jsonOnGet(method: HTTPMethod) {
        #expect(throws: APIError.self) {
            try Route.method(method, "https://h/p").makeURLRequest(parameters: JSONParameters(product))
        }
    }

    @Test("form: RFC 3986 escaping, sorted keys, brackets, form Content-Type")
    func form() throws {
        let parameters = FormURLParameters(
            ["name": "a b+c&d", "tags": ["x", "y"]], headers: ["X-Trace": "1"])
        let request = try Route.post("https://h/p").makeURLRequest(parameters: parameters)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "1")
        #expect(
            String(decoding: request.httpBody ?? Data(), as: UTF8.self)
                == "name=a%20b%2Bc%26d&tags%5B%5D=x&tags%5B%5D=y"
        )
    }

    @Test("form on GET goes to the query: no body, no Content-Type")
    func formOnGet() throws {
        let request = try Route.get("https://h/p").makeURLRequest(parameters: FormURLParameters(["a": "1"]))
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(request.url?.query == "a=1")
    }
}

@Suite("Key mapping for decoding")
struct KeyMappingDecodingTests {
    struct Profile: Decodable, Equatable {
        var displayName: String
        // Foundation's convertFromSnakeCase reads `user_id` as `userId`, not `userID`.
        var userId: Int
    }

    @Test("JSONParser(keyMapping: .snakeCase) reads snake_case keys")
    func snakeCase() throws {
        let data = Data(#"{"display_name": "Ada", "user_id": 7}"#.utf8)
        let profile: Profile = try JSONParser(keyMapping: .snakeCase).getInstance(from: data, response: nil)
        #expect(profile == Profile(displayName: "Ada", userId: 7))
    }

    @Test(
        "snake_case conversion of keys",
        arguments: [
            ("pageSize", "page_size"), ("userID", "user_id"), ("myURLValue", "my_url_value"), ("a", "a"),
            ("already_snake", "already_snake"), ("version2Beta", "version2_beta"),
        ])
    func conversion(key: String, expected: String) {
        #expect(KeyMapping.snakeCase.map(key) == expected)
    }
}
