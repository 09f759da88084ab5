import Foundation
import Osprey
import Testing

/// `JSONParameters` from the mixed dictionaries and arrays Alamofire users write every day.
@Suite("JSONParameters from mixed dictionaries and arrays")
struct JSONDictionaryParametersTests {
    struct Message: Encodable, Sendable {
        var role: String
        var content: String
    }

    struct NotEncodable: Sendable {}

    private func body(_ parameters: JSONParameters, encoding: ParameterEncoding = ParameterEncoding()) throws
        -> String
    {
        let request = try Route.post("https://h/chat").makeURLRequest(
            parameters: parameters, encoding: encoding)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        return String(decoding: request.httpBody ?? Data(), as: UTF8.self)
    }

    @Test("a literal of strings, numbers and booleans is a JSON object, keys sorted")
    func mixedLiteral() throws {
        #expect(
            try body(JSONParameters(["model": "m", "n": 2, "stream": true, "t": 0.5]))
                == #"{"model":"m","n":2,"stream":true,"t":0.5}"#)
    }

    @Test("nested arrays and dictionaries, nil, NSNull and Encodable values (dates as the API writes them)")
    func nested() throws {
        let missing: String? = nil
        let parameters = JSONParameters([
            // A nested collection that mixes types needs its type named, as in any Swift literal.
            "messages": [Message(role: "user", content: "Hi"), ["role": "system", "content": "Be brief"]]
                as [any Sendable],
            "stop": missing,
            "user": NSNull(),
            "at": Date(timeIntervalSince1970: 0),
            "ids": [1, 2, 3],
            "maybe": Optional(Optional(7)),
        ])
        let text = try body(parameters)
        #expect(
            text
                == #"{"at":"1970-01-01T00:00:00Z","ids":[1,2,3],"maybe":7,"messages":[{"content":"Hi","role":"user"},"#
                + #"{"content":"Be brief","role":"system"}],"stop":null,"user":null}"#, "\(text)")
    }

    @Test("an array of mixed values is a JSON array, in order")
    func array() throws {
        #expect(
            try body(JSONParameters(["a", 1, false, ["k": "v"]] as [any Sendable]))
                == #"["a",1,false,{"k":"v"}]"#)
    }

    @Test("a value JSON cannot hold fails before sending, naming its place and type")
    func unsupportedValue() throws {
        let parameters = JSONParameters([
            "messages": [["content": "Hi"], ["content": NotEncodable()]] as [any Sendable]
        ])
        do {
            _ = try body(parameters)
            Issue.record("a value that is not JSON must fail the request")
        } catch let error as APIError {
            guard case .encodingFailed(let reason, _) = error else {
                Issue.record("expected encodingFailed, got \(error)")
                return
            }
            #expect(reason.contains("messages[1].content"))
            #expect(reason.contains("NotEncodable"))
        }
    }

    @Test("a dictionary's keys are sent as written, typed or mixed (the key mapping is for properties)")
    func typedDictionary() throws {
        var encoding = ParameterEncoding()
        encoding.keyMapping = .snakeCase
        let typed: [String: String] = ["firstName": "Ada"]
        let mixed: [String: any Sendable] = ["firstName": "Ada", "age": 36]
        // JSONEncoder maps the keys of properties, not of dictionaries: both read the same way.
        let typedText = try body(JSONParameters(typed), encoding: encoding)
        let mixedText = try body(JSONParameters(mixed), encoding: encoding)
        #expect(typedText == #"{"firstName":"Ada"}"#, "\(typedText)")
        #expect(mixedText == #"{"age":36,"firstName":"Ada"}"#, "\(mixedText)")
    }
}
