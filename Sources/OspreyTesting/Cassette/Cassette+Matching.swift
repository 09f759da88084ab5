import Foundation
import Osprey

extension Cassette {
    /// When a request matches a recorded one. Both are compared redacted, as they would be
    /// written, so that a recorded `REDACTED` token matches the real one sent again.
    ///
    /// ```swift
    /// Cassette.Matching.methodAndURL                       // the default
    /// Cassette.Matching.methodAndURL.headers("Accept").body
    /// Cassette.Matching.custom { request, recorded in request.url == recorded.url }
    /// ```
    public struct Matching: Sendable {
        /// A test both requests must pass: the one sent, then the recorded one.
        public typealias Rule = @Sendable (_ request: HAR.Request, _ recorded: HAR.Request) -> Bool

        /// The rules beyond the method and URL (all of them for a custom matching).
        let rules: [Rule]
        /// Whether the method and URL are compared: requests are then looked up by them.
        let comparesMethodAndURL: Bool

        /// Whether nothing else is compared.
        var hasOnlyMethodAndURL: Bool { comparesMethodAndURL && rules.isEmpty }

        /// The method and the URL, the query's order ignored: the default.
        public static let methodAndURL = Matching(rules: [], comparesMethodAndURL: true)

        /// A rule of your own, alone.
        public static func custom(_ rule: @escaping Rule) -> Matching {
            Matching(rules: [rule], comparesMethodAndURL: false)
        }

        /// This matching and the values of `names` too (a header missing on both sides matches).
        public func headers(_ names: String...) -> Matching {
            let names = names
            return adding { request, recorded in
                names.allSatisfy { name in
                    Self.values(of: name, in: request) == Self.values(of: name, in: recorded)
                }
            }
        }

        /// This matching and the body too: JSON compared as JSON (key order and spacing
        /// ignored), forms field by field, multipart part by part (the boundary ignored),
        /// anything else byte for byte.
        public var body: Matching {
            adding { request, recorded in BodyKey(request.postData) == BodyKey(recorded.postData) }
        }

        /// This matching and `rule` too.
        public func adding(_ rule: @escaping Rule) -> Matching {
            Matching(rules: rules + [rule], comparesMethodAndURL: comparesMethodAndURL)
        }

        /// Whether `request` matches `recorded` (both as redacted).
        public func matches(_ request: HAR.Request, _ recorded: HAR.Request) -> Bool {
            if comparesMethodAndURL {
                guard request.method.uppercased() == recorded.method.uppercased(),
                    URLKey(request.url) == URLKey(recorded.url)
                else { return false }
            }
            return rules.allSatisfy { $0(request, recorded) }
        }

        private static func values(of name: String, in request: HAR.Request) -> [String] {
            request.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }
    }
}

/// A URL with its query items sorted, for comparison.
struct URLKey: Hashable {
    let base: String
    let query: [String]

    init(_ text: String) {
        guard var components = URLComponents(string: text) else {
            base = text
            query = []
            return
        }
        query = (components.percentEncodedQueryItems ?? []).map {
            let name = $0.name.removingPercentEncoding ?? $0.name
            let value = $0.value.map { $0.removingPercentEncoding ?? $0 }
            return value.map { "\(name)=\($0)" } ?? name
        }
        .sorted()
        components.percentEncodedQuery = nil
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        base = components.string ?? text
    }
}

/// A request body in the form it is compared in.
struct BodyKey: Equatable {
    private enum Form: Equatable {
        case none
        case json(JSONShape)
        case fields([String])
        case parts([[Data]])
        case bytes(Data)
    }

    private let form: Form

    init(_ postData: HAR.PostData?) {
        guard let postData, let text = postData.text else {
            form = .none
            return
        }
        let bytes =
            postData.encoding == "base64" ? Data(base64Encoded: text) ?? Data(text.utf8) : Data(text.utf8)
        if bytes.isEmpty {
            form = .none
        } else if HAR.isJSONType(postData.mimeType),
            let value = try? JSONDecoder().decode(JSONShape.self, from: bytes)
        {
            form = .json(value)
        } else if postData.mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            form = .fields(text.split(separator: "&").map(String.init).sorted())
        } else if let multipart = HAR.Multipart(bytes, mimeType: postData.mimeType) {
            // Two uploads of the same parts differ in their random boundary only.
            form = .parts(
                multipart.parts.map {
                    [
                        Data($0.name.utf8), Data(($0.fileName ?? "").utf8), Data(($0.contentType ?? "").utf8),
                        $0.content,
                    ]
                })
        } else {
            form = .bytes(bytes)
        }
    }
}

extension HAR {
    /// Whether `mimeType` names JSON.
    static func isJSONType(_ mimeType: String) -> Bool {
        let type =
            mimeType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return type == "application/json" || type.hasSuffix("+json")
    }
}

/// A JSON value for comparison: objects unordered, numbers by value.
indirect enum JSONShape: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONShape])
    case object([String: JSONShape])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONShape].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONShape].self))
        }
    }
}
