import Foundation

/// What is taken out of an archive before it is written: secrets never reach a file.
///
/// By default every header ``HTTPHeaders/isSensitive(_:declared:)`` calls a credential
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, API keys, tokens) and any
/// user name and password in a URL lose their values. Name more headers, query items and JSON
/// fields (at any depth, in request and response bodies) to redact them too, and list the
/// secret values themselves in ``secrets``: ``check(_:)`` then refuses an archive in which one
/// still appears anywhere, in any field, whatever put it there.
///
/// ```swift
/// var redaction = HARRedaction()
/// redaction.queryItems = ["api_key"]
/// redaction.jsonFields = ["password", "access_token"]
/// redaction.secrets = [ProcessInfo.processInfo.environment["GITHUB_TOKEN"] ?? ""]
/// ```
public struct HARRedaction: Sendable {
    /// What replaces a redacted value.
    public var placeholder = "REDACTED"
    /// More header names to redact (in any case), beyond those Osprey calls credentials.
    public var headers: Set<String> = []
    /// Query item names whose values are redacted (in any case).
    public var queryItems: Set<String> = []
    /// JSON object keys whose values are redacted wherever they appear in a JSON body.
    public var jsonFields: Set<String> = []
    /// Values that must not appear anywhere in a written archive (empty ones are ignored).
    public var secrets: [String] = []

    /// The default redaction: credential headers and URL credentials.
    public init() {}

    /// A secret found in an archive after redaction.
    public struct SecretFound: Error, Sendable, CustomStringConvertible {
        /// Where it was found (`entries[2].response.content.text`), never the secret itself.
        public let location: String

        /// What went wrong, without the secret.
        public var description: String {
            "refused to write the archive: a configured secret appears in \(location)"
        }
    }

    /// The archive with every configured value redacted.
    public func redact(_ archive: HAR) -> HAR {
        var redacted = archive
        redacted.log.entries = archive.log.entries.map(redact)
        return redacted
    }

    /// The entry with every configured value redacted.
    public func redact(_ entry: HAR.Entry) -> HAR.Entry {
        var entry = entry
        entry.request = redact(entry.request)
        entry.response.headers = entry.response.headers.map(redact)
        entry.response.cookies = entry.response.cookies.map {
            var cookie = $0
            cookie.value = placeholder
            return cookie
        }
        if let text = entry.response.content.text, entry.response.content.encoding == nil,
            HAR.isJSON(entry.response.content.mimeType)
        {
            entry.response.content.text = redactJSON(text)
        }
        if !entry.response.redirectURL.isEmpty {
            entry.response.redirectURL = redactURL(entry.response.redirectURL)
        }
        return entry
    }

    /// The request with every configured value redacted: what a cassette compares.
    public func redact(_ request: HAR.Request) -> HAR.Request {
        var request = request
        request.url = redactURL(request.url)
        request.headers = request.headers.map(redact)
        request.cookies = request.cookies.map {
            var cookie = $0
            cookie.value = placeholder
            return cookie
        }
        request.queryString = request.queryString.map {
            isRedacted(query: $0.name) ? HAR.Field(name: $0.name, value: placeholder) : $0
        }
        if let postData = request.postData, let redacted = redactMultipart(postData) {
            request.postData = redacted
        } else if var postData = request.postData, postData.encoding == nil, let text = postData.text {
            if HAR.isJSON(postData.mimeType) { postData.text = redactJSON(text) }
            if let params = postData.params {
                postData.params = params.map {
                    var param = $0
                    if isRedacted(query: param.name), param.value != nil { param.value = placeholder }
                    return param
                }
                if postData.mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
                    postData.text = redactForm(text)
                }
            }
            request.postData = postData
        }
        return request
    }

    /// A multipart body with the redacted fields' values replaced inside the body too (not only
    /// in its `params`), written again with its boundary; nil when the body is not multipart.
    private func redactMultipart(_ postData: HAR.PostData) -> HAR.PostData? {
        guard let text = postData.text, HAR.Multipart.boundary(of: postData.mimeType) != nil else {
            return nil
        }
        let bytes = postData.encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
        guard let bytes, var multipart = HAR.Multipart(bytes, mimeType: postData.mimeType) else { return nil }
        var postData = postData
        var changed = false
        for index in multipart.parts.indices where isRedacted(query: multipart.parts[index].name) {
            multipart.parts[index].content = Data(placeholder.utf8)
            changed = true
        }
        postData.params = multipart.params
        guard changed else { return postData }
        let body = multipart.body
        postData.text =
            postData.encoding == "base64" ? body.base64EncodedString() : String(decoding: body, as: UTF8.self)
        return postData
    }

    /// Refuses `archive` when one of ``secrets`` appears anywhere in its JSON, base64 bodies
    /// decoded included.
    /// - Throws: ``SecretFound``, naming where.
    public func check(_ archive: HAR) throws {
        let secrets = self.secrets.filter { !$0.isEmpty }
        guard !secrets.isEmpty else { return }
        for (index, entry) in archive.log.entries.enumerated() {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let parts: [(String, Data?)] = [
                ("request", try? encoder.encode(entry.request)),
                (
                    "request body",
                    entry.request.postData.flatMap {
                        $0.encoding == "base64" ? $0.text.flatMap { Data(base64Encoded: $0) } : nil
                    }
                ),
                ("response", try? encoder.encode(entry.response)),
                (
                    "response body",
                    entry.response.content.encoding == "base64" ? entry.response.content.data : nil
                ),
                ("entry", try? encoder.encode(entry)),
            ]
            for (name, data) in parts {
                guard let data else { continue }
                let text = String(decoding: data, as: UTF8.self)
                for secret in secrets where text.contains(secret) || text.contains(Self.jsonEscaped(secret)) {
                    throw SecretFound(location: "entries[\(index)] (\(name))")
                }
            }
        }
    }

    private static func jsonEscaped(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(text) else { return text }
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    private func redact(_ field: HAR.Field) -> HAR.Field {
        HTTPHeaders.isSensitive(field.name, declared: headers)
            ? HAR.Field(name: field.name, value: placeholder) : field
    }

    private func isRedacted(query name: String) -> Bool {
        queryItems.contains { HTTPHeaders.same($0, name) }
    }

    private func redactURL(_ text: String) -> String {
        // Nothing to take out without user info (which needs an `@`) or named query items: no
        // parse, which replaying thousands of requests would pay for each.
        guard queryItems.isEmpty ? text.utf8.contains(UInt8(ascii: "@")) : true,
            var components = URLComponents(string: text)
        else { return text }
        var changed = false
        if components.user != nil || components.password != nil {
            components.user = components.user == nil ? nil : placeholder
            components.password = components.password == nil ? nil : placeholder
            changed = true
        }
        if let items = components.percentEncodedQueryItems,
            items.contains(where: { isRedacted(query: $0.name) })
        {
            components.percentEncodedQueryItems = items.map {
                isRedacted(query: $0.removingPercentEncodingName) && $0.value != nil
                    ? URLQueryItem(name: $0.name, value: placeholder) : $0
            }
            changed = true
        }
        return changed ? components.string ?? text : text
    }

    private func redactForm(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name =
                String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                ?? String(parts[0])
            guard parts.count > 1, isRedacted(query: name) else { return String(pair) }
            return "\(parts[0])=\(placeholder)"
        }
        .joined(separator: "&")
    }

    private func redactJSON(_ text: String) -> String {
        guard !jsonFields.isEmpty, let data = text.data(using: .utf8),
            let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return text }
        let redacted = redactJSONValue(value)
        guard
            let output = try? JSONSerialization.data(
                withJSONObject: redacted, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
        else { return text }
        return String(decoding: output, as: UTF8.self)
    }

    private func redactJSONValue(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var redacted: [String: Any] = [:]
            for (key, value) in object {
                redacted[key] = jsonFields.contains(key) ? placeholder : redactJSONValue(value)
            }
            return redacted
        }
        if let array = value as? [Any] { return array.map(redactJSONValue) }
        return value
    }
}

extension URLQueryItem {
    fileprivate var removingPercentEncodingName: String { name.removingPercentEncoding ?? name }
}

extension HAR {
    /// Whether a body of `mimeType` is JSON.
    static func isJSON(_ mimeType: String) -> Bool {
        let type =
            mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }?
            .lowercased() ?? ""
        return type == "application/json" || type.hasSuffix("+json")
    }
}
