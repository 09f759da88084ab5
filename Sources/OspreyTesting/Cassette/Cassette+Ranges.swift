import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Cassette {
    /// The recorded answer to `request`, cut to the range it asks for: a download that resumes
    /// (`Range: bytes=N-`, with or without `If-Range`) is answered from a recording of the whole
    /// body as a file server would, `206` with the rest of it, `416` past its end, or the whole
    /// `200` when `If-Range` names another version. Anything else is answered as recorded.
    static func ranged(_ entry: HAR.Entry, for request: URLRequest) -> HAR.Entry {
        guard entry.response.status == 200, let start = rangeStart(of: request),
            let body = entry.response.content.data
        else { return entry }
        let headers = entry.response.headers
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        if let condition = request.value(forHTTPHeaderField: "If-Range") {
            // Only a strong validator may select a range (RFC 9110 §13.1.5).
            let etag = header("etag")
            let matches =
                condition.hasPrefix("W/") ? false : condition == etag || condition == header("last-modified")
            if !matches { return entry }
        }
        var answer = entry
        answer.response.headers = headers.filter { $0.name.lowercased() != "content-range" }
        answer.response.content.chunks = nil
        answer.response.content.chunkTimes = nil
        guard start < body.count else {
            answer.response.status = 416
            answer.response.statusText = "Range Not Satisfiable"
            answer.response.headers.append(HAR.Field(name: "Content-Range", value: "bytes */\(body.count)"))
            answer.response.content.text = ""
            answer.response.content.encoding = nil
            answer.response.content.size = 0
            return answer
        }
        let rest = body.subdata(in: start..<body.count)
        answer.response.status = 206
        answer.response.statusText = "Partial Content"
        answer.response.headers.append(
            HAR.Field(name: "Content-Range", value: "bytes \(start)-\(body.count - 1)/\(body.count)"))
        answer.response.content.text = rest.base64EncodedString()
        answer.response.content.encoding = "base64"
        answer.response.content.size = rest.count
        return answer
    }

    /// N of `Range: bytes=N-`, the form a resuming download sends.
    private static func rangeStart(of request: URLRequest) -> Int? {
        guard let range = request.value(forHTTPHeaderField: "Range")?.trimmingCharacters(in: .whitespaces),
            range.lowercased().hasPrefix("bytes="), range.hasSuffix("-")
        else { return nil }
        return Int(range.dropFirst("bytes=".count).dropLast()).flatMap { $0 >= 0 ? $0 : nil }
    }
}
