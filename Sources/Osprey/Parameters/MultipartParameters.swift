import Foundation

/// A `multipart/form-data` body (RFC 7578) from parts, in the order given (repeated names are
/// fine), plus text fields from an `Encodable` value.
///
/// ```swift
/// let part = Part(mimeType: .png, data: data, attributes: ["name": "picture", "filename": "a.png"])
/// let params = MultipartParameters(parts: [part])
/// let withFields = MultipartParameters(product, parts: [part], headers: ["Authentication": "Token t"])
/// ```
///
/// The value's top-level fields become text parts first (sorted by name, arrays as repeated
/// fields, keys mapped like form parameters), then the parts. A body with file parts, or larger
/// than `inMemoryLimit`, is written to a temporary file and uploaded from it, so memory stays
/// flat whatever the file sizes; the file is deleted when the request is over.
open class MultipartParameters: BaseParameters, @unchecked Sendable {
    // @unchecked: `parts`, `fields` and `boundary` are constants; the two settings below are
    // read and written under `settings`' lock, the inherited headers under the base class's.

    /// The parts, in order.
    public let parts: [Part]
    /// Text fields to send before the parts, from the value given at creation.
    public let fields: (any Encodable & Sendable)?
    /// A fixed boundary, for byte-exact tests; a fresh random one per request when nil. A fixed
    /// boundary that appears in an in-memory part fails with `encodingFailed` (file parts are
    /// not read for it).
    public let boundary: String?
    /// Bodies larger than this many bytes go through a temporary file; 8 MiB by default.
    public var inMemoryLimit: Int {
        get { settings.withLock { $0.inMemoryLimit } }
        set { settings.withLock { $0.inMemoryLimit = newValue } }
    }
    /// Where temporary body files are written; the system's temporary folder when nil.
    public var temporaryDirectory: URL? {
        get { settings.withLock { $0.temporaryDirectory } }
        set { settings.withLock { $0.temporaryDirectory = newValue } }
    }

    private struct Settings {
        var inMemoryLimit = 8 * 1024 * 1024
        var temporaryDirectory: URL?
    }

    private let settings = Locked(Settings())

    /// Creates a multipart body from parts.
    public init(
        parts: [Part], headers: HTTPHeaders = [:], timeout: TimeInterval? = nil, boundary: String? = nil
    ) {
        self.parts = parts
        fields = nil
        self.boundary = boundary
        super.init(headers: headers, timeout: timeout)
    }

    /// Creates a multipart body whose first parts are the fields of `value`.
    public init(
        _ value: some Encodable & Sendable,
        parts: [Part] = [],
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil,
        boundary: String? = nil
    ) {
        self.parts = parts
        fields = value
        self.boundary = boundary
        super.init(headers: headers, timeout: timeout)
    }

    /// Writes the body and its `Content-Type` with the boundary.
    open override func encode(into draft: inout RequestDraft) throws {
        guard !draft.method.forbidsBody else {
            throw APIError.invalidRequest(reason: "a \(draft.method) request cannot have a multipart body")
        }
        let all = try fieldParts(keyMapping: draft.encoding.keyMapping) + parts
        let fileSizes = try all.compactMap(\.fileURL).map { try MultipartFileWriter.validatedSize(of: $0) }
        let inMemorySize = all.reduce(0) { $0 + $1.data.count }
        let settings = settings.withLock { $0 }
        if fileSizes.isEmpty, inMemorySize <= settings.inMemoryLimit {
            let (body, boundary) = try MultipartEncoder.encode(all, boundary: self.boundary)
            draft.setBody(body, contentType: "multipart/form-data; boundary=\(boundary)")
        } else {
            let directory = settings.temporaryDirectory ?? FileManager.default.temporaryDirectory
            let (file, boundary) = try MultipartFileWriter.write(all, boundary: self.boundary, in: directory)
            draft.setBody(
                fileAt: file, contentType: "multipart/form-data; boundary=\(boundary)", isTemporary: true)
        }
    }

    private func fieldParts(keyMapping: KeyMapping) throws -> [Part] {
        guard let fields else { return [] }
        let encoder = JSONParameters.makeEncoder(keyMapping: keyMapping)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(
                with: try encoder.encode(fields), options: [.fragmentsAllowed])
        } catch {
            throw APIError.encodingFailed(
                reason: "could not encode \(type(of: fields)) as form fields", underlying: error)
        }
        guard let dictionary = object as? [String: Any] else {
            throw APIError.encodingFailed(
                reason: "\(type(of: fields)) does not encode as an object", underlying: nil)
        }
        var result: [Part] = []
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            for element in (value as? [Any]) ?? [value] {
                if element is NSNull { continue }
                result.append(Part(name: name, value: Self.text(of: element)))
            }
        }
        return result
    }

    private static func text(of value: Any) -> String {
        if let number = value as? NSNumber, isBoolean(number) { return number.boolValue ? "true" : "false" }
        if let string = value as? String { return string }
        if JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}

/// Whether an `NSNumber` from JSONSerialization holds a boolean.
private func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
        && (number == NSNumber(value: true) || number == NSNumber(value: false))
}
