import Foundation
import Osprey

/// Lines of one or more response heads, as libcurl hands them over, then their framing verdict.
enum ResponseHeadTarget {
    static func run(_ input: Data) {
        // The first byte picks the request's method and whether a size limit applies.
        let method = ["GET", "HEAD", "POST"][Int(input.first ?? 0) % 3]
        var request = TransportRequest(urlRequest: URLRequest(url: URL(string: "http://fuzz.test/")!))
        request.maximumResponseBytes = (input.first ?? 0) & 0x80 == 0 ? 1000 : nil
        var reader = ResponseHeadReader()
        for line in input.dropFirst().split(separator: 0x0A, omittingEmptySubsequences: false) {
            let step = (Data(line) + [0x0A]).withUnsafeBytes { reader.take($0) }
            switch step {
            case .needMore:
                continue
            case .invalidStatusLine:
                reader = ResponseHeadReader()
            case .finalHead:
                guard let status = reader.status else { preconditionFailure("a final head without a status") }
                precondition((200...999).contains(status.code), "status \(status.code)")
                let verdict = request.framingVerdict(
                    statusCode: status.code, headers: FramingHeaders(lines: reader.lines), method: method)
                if case .accept(let length?) = verdict {
                    precondition(length >= 0, "a negative body length")
                    if let limit = request.maximumResponseBytes { precondition(length <= limit) }
                }
                reader = ResponseHeadReader()
            }
        }
    }
}
