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
        guard body != nil || !fields.isEmpty || !parts.isEmpty else { return }
        switch bodyEncoding.kind {
        case .json(let custom):
            guard parts.isEmpty else { throw Self.partsNeedMultipart }
            draft.setBody(
                try jsonBody(encoder: custom, keyMapping: encoding.keyMapping),
                contentType: "application/json")
        case .urlForm(let custom):
            guard parts.isEmpty else { throw Self.partsNeedMultipart }
            var formEncoding = custom ?? encoding
            if let keyMapping { formEncoding.keyMapping = keyMapping }
            var dictionary = try body.map(FormValues.dictionary(encoding:)) ?? [:]
            dictionary.merge(Self.dictionary(fields)) { _, field in field }
            let form = try FormEncoder(encoding: formEncoding).encode(dictionary)
            draft.setBody(Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        case .multipart(let boundary):
            let named = parts.map { named -> Part in
                var part = named.part
                if named.isNamedByKey { part.name = encoding.keyMapping.map(part.name) }
                return part
            }
            draft.encoding = encoding
            if let body, !fields.isEmpty { try MergedBody.checkObject(body) }
            let textFields: (any Encodable & Sendable)? =
                fields.isEmpty
                ? body : MergedBody(body: body, fields: FieldList(fields: fields, keyMapping: nil))
            let multipart =
                textFields.map { MultipartParameters($0, parts: named, boundary: boundary) }
                ?? MultipartParameters(parts: named, boundary: boundary)
            try multipart.encode(into: &draft)
        }
    }

    private static let partsNeedMultipart = APIError.encodingFailed(
        reason: "parts need a multipart body (@Multipart)", underlying: nil)

    /// The JSON body: the whole body, the fields, or the body with the fields merged into it.
    /// An encoder of your own gets the key mapping when one is set (as a copy: yours is not
    /// changed).
    private func jsonBody(encoder custom: JSONEncoder?, keyMapping mapping: KeyMapping) throws -> Data {
        let encoder: JSONEncoder
        if let custom {
            encoder = keyMapping.map { Self.copy(custom, keyMapping: $0) } ?? custom
        } else {
            encoder = JSONParameters.makeEncoder(keyMapping: mapping)
        }
        do {
            let fieldList = FieldList(fields: fields, keyMapping: nil)
            guard let body else { return try encoder.encode(fieldList) }
            guard !fields.isEmpty else { return try encoder.encode(body) }
            try MergedBody.checkObject(body)
            return try encoder.encode(MergedBody(body: body, fields: fieldList))
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.encodingFailed(reason: "could not encode the body as JSON", underlying: error)
        }
    }

    /// `encoder` with another key strategy; everything else the same.
    private static func copy(_ encoder: JSONEncoder, keyMapping: KeyMapping) -> JSONEncoder {
        let copy = JSONEncoder()
        copy.outputFormatting = encoder.outputFormatting
        copy.dateEncodingStrategy = encoder.dateEncodingStrategy
        copy.dataEncodingStrategy = encoder.dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = encoder.nonConformingFloatEncodingStrategy
        copy.userInfo = encoder.userInfo
        copy.keyEncodingStrategy = keyMapping.encodingStrategy
        return copy
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

/// A whole body with fields added beside it (by a provider's modifier, say): one object, the
/// body's keys then the fields (a field wins over a body key of the same name).
struct MergedBody: Encodable, Sendable {
    let body: (any Encodable & Sendable)?
    let fields: FieldList

    /// Fields can only join a body that is an object.
    /// - Throws: ``APIError/encodingFailed(reason:underlying:)`` otherwise.
    static func checkObject(_ body: any Encodable) throws {
        let data = try JSONEncoder().encode(body)
        guard data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) == UInt8(ascii: "{") else {
            throw APIError.encodingFailed(
                reason: "fields cannot be added to a body of type \(type(of: body)), which is not an object",
                underlying: nil)
        }
    }

    func encode(to encoder: any Encoder) throws {
        if let body {
            // The body writes its keys into the same keyed container the fields go to.
            try body.encode(to: encoder)
        }
        try fields.encode(to: encoder)
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
