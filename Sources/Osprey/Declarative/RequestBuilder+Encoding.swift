import Foundation

extension RequestBuilder {
    /// The base URL joined with the path, its placeholders filled, each value encoded as one
    /// segment.
    /// - Throws: ``APIError/invalidRequest(reason:)`` for a placeholder without a value.
    func makeURL() throws -> String {
        let queryStart = path.firstIndex { $0 == "?" || $0 == "#" } ?? path.endIndex
        var filled = ""
        var rest = path[..<queryStart]
        while let index = rest.firstIndex(where: { $0 == ":" || $0 == "{" }) {
            filled += rest[..<index]
            let isColon = rest[index] == ":"
            let nameStart = rest.index(after: index)
            let nameEnd =
                rest[nameStart...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? rest.endIndex
            let name = String(rest[nameStart..<nameEnd])
            let closes = !isColon && nameEnd < rest.endIndex && rest[nameEnd] == "}"
            let atSegmentStart = index == rest.startIndex || rest[rest.index(before: index)] == "/"
            guard !name.isEmpty, isColon ? atSegmentStart : closes, name.first?.isNumber == false else {
                filled.append(rest[index])
                rest = rest[nameStart...]
                continue
            }
            guard let value = parameters[name] else {
                throw APIError.invalidRequest(
                    reason: "the path parameter \(name.debugDescription) has no value")
            }
            filled += PercentEncoding.encodePathSegment(value)
            rest = rest[(closes ? rest.index(after: nameEnd) : nameEnd)...]
        }
        filled += rest
        return joinURL(baseURL, filled + path[queryStart...])
    }

    /// Writes the method, URL, query, headers and body into `draft`.
    func encode(into draft: inout RequestDraft) throws {
        draft.method = method
        draft.url = try makeURL()
        draft.headers = draft.headers.merging(headers)
        var encoding = draft.encoding
        if let keyMapping { encoding.keyMapping = keyMapping }
        if !queries.isEmpty {
            try draft.appendQuery(Self.dictionary(queries), encoding: encoding)
        }
        switch content {
        case .none:
            return
        case .parts(let parts):
            guard case .multipart(let boundary) = bodyEncoding.kind else {
                throw APIError.encodingFailed(
                    reason: "parts need a multipart body (@Multipart)", underlying: nil)
            }
            draft.encoding = encoding
            try MultipartParameters(parts: parts, boundary: boundary).encode(into: &draft)
        case .fields(let fields):
            try encodeBody(fields: fields, value: nil, into: &draft, encoding: encoding)
        case .value(let value):
            try encodeBody(fields: nil, value: value, into: &draft, encoding: encoding)
        }
    }

    /// Writes fields (as one object) or a whole value in the body encoding.
    private func encodeBody(
        fields: [(key: String, value: any Encodable & Sendable)]?, value: (any Encodable & Sendable)?,
        into draft: inout RequestDraft, encoding: ParameterEncoding
    ) throws {
        switch bodyEncoding.kind {
        case .json(let custom):
            // The default encoder maps keys itself; an encoder of your own gets mapped field names.
            let encoder = custom ?? JSONParameters.makeEncoder(keyMapping: encoding.keyMapping)
            let body: any Encodable =
                value ?? FieldList(fields: fields ?? [], keyMapping: custom == nil ? nil : keyMapping)
            do {
                draft.setBody(try encoder.encode(body), contentType: "application/json")
            } catch {
                throw APIError.encodingFailed(reason: "could not encode the body as JSON", underlying: error)
            }
        case .urlForm(let custom):
            var formEncoding = custom ?? encoding
            if let keyMapping { formEncoding.keyMapping = keyMapping }
            let dictionary = try fields.map(Self.dictionary) ?? FormValues.dictionary(encoding: value!)
            let form = try FormEncoder(encoding: formEncoding).encode(dictionary)
            draft.setBody(Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        case .multipart(let boundary):
            draft.encoding = encoding
            let body: any Encodable & Sendable = value ?? FieldList(fields: fields ?? [], keyMapping: nil)
            try MultipartParameters(body, boundary: boundary).encode(into: &draft)
        }
    }

    /// Items as a dictionary (a later value for the same key wins, as in a form).
    private static func dictionary(_ items: [(key: String, value: any Encodable & Sendable)]) -> [String:
        any Sendable]
    {
        var dictionary: [String: any Sendable] = [:]
        for (key, value) in items { dictionary[key] = value }
        return dictionary
    }
}

/// Fields as one JSON object, in order. With the default encoder the encoder's key strategy maps
/// the keys; with an encoder of your own the builder's key mapping is applied here.
struct FieldList: Encodable, Sendable {
    let fields: [(key: String, value: any Encodable & Sendable)]
    let keyMapping: KeyMapping?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for (key, value) in fields {
            try container.encode(value, forKey: FieldKey(stringValue: keyMapping?.map(key) ?? key))
        }
    }
}

struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
