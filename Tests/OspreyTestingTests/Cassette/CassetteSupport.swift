import Foundation
import Osprey
import OspreyTesting
import Testing

/// A client of a loopback server (or of a cassette that recorded one), for the cassette tests.
final class RecordedAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    struct Item: Codable, Sendable, Equatable {
        var name: String
        var count: Int
    }

    init(baseURL: String, transport: any HTTPTransport) {
        self.baseURL = baseURL
        super.init(responseParser: JSONParser(), transport: transport)
    }
}

/// Passes every request to `transport` and keeps the `Range` each asked for: what a test reads to
/// see where a download went on from.
struct RangeWatchingTransport: HTTPTransport {
    let transport: any HTTPTransport
    let ranges = Locked<[String?]>([])

    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        ranges.withLock { $0.append(request.urlRequest.value(forHTTPHeaderField: "Range")) }
        return transport.send(request)
    }
}

/// A folder for a test's HAR files, removed by `cleanUp()`, which first checks that none of
/// the secrets the cassette tests send reached any file written in it.
struct CassetteFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-cassette-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "traffic.har") -> URL { url.appendingPathComponent(name) }

    /// Every file written in the folder, as text.
    func writtenText() throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted().map {
            String(decoding: try Data(contentsOf: url.appendingPathComponent($0)), as: UTF8.self)
        }
        .joined(separator: "\n")
    }

    func cleanUp() {
        let written = (try? writtenText()) ?? ""
        for secret in CassetteSecretTests.secrets where written.contains(secret) {
            Issue.record("a secret the tests send was written to a file in \(url.path)")
        }
        try? FileManager.default.removeItem(at: url)
    }
}

/// The transport cassettes record through: the one the suite runs on (`OSPREY_TEST_TRANSPORT`:
/// `urlsession`, else the platform's default).
func liveTransport() -> (any HTTPTransport)? {
    ProcessInfo.processInfo.environment["OSPREY_TEST_TRANSPORT"] == "urlsession" ? URLSessionTransport() : nil
}
