import Foundation
import Osprey
import OspreyTestSupport
import OspreyTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A HAR written by another tool replays through a cassette: mitmproxy (PyPI), as a reverse
/// proxy in front of the loopback server, dumps the traffic it carried (`hardump`), and the
/// cassette answers the same requests from that file with the server gone.
/// Scripts/with-httpbin.sh installs mitmproxy and exports `OSPREY_MITMDUMP`.
@Suite(
    "Cassette: a HAR written by mitmproxy replays",
    .enabled(
        if: ProcessInfo.processInfo.environment["OSPREY_MITMDUMP"] != nil,
        "OSPREY_MITMDUMP is not set: run the tests with Scripts/test.sh"))
struct MitmproxyReplayTests {
    @Test("JSON, a POST body and a binary body, recorded by mitmdump's hardump, replay offline")
    func replaysMitmproxy() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        server.route("GET", "/items/:name") { request in
            .json(#"{"name": "\#(request.pathParameters["name"]!)", "count": 2}"#)
        }
        server.route("POST", "/items") { request in .json(request.body, status: 201) }
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff])
        server.route("GET", "/logo") { _ in
            LoopbackServer.Response(headers: [.init("Content-Type", "image/png")], body: png)
        }
        let har = folder.file("mitmproxy.har")
        let proxy = try await Mitmdump.start(upstream: server.url("/"), dump: har, confdir: folder.url)

        // Through the proxy: what mitmproxy sees and dumps.
        let live = RecordedAPI(
            baseURL: proxy.url.absoluteString, transport: liveTransport() ?? URLSessionTransport())
        let item: RecordedAPI.Item = try await live.request(route: live.get(endpoint: "/items/a")).value
        let created: RecordedAPI.Item = try await live.request(
            route: live.post(endpoint: "/items"),
            parameters: JSONParameters(RecordedAPI.Item(name: "b", count: 5))
        ).value
        let logo: Data = try await live.request(route: live.get(endpoint: "/logo")).value
        #expect(logo == png)
        try await proxy.stop()
        server.stop()
        #expect(server.requests.count == 3)
        let dumped = try HAR(data: Data(contentsOf: har))
        #expect(dumped.log.creator.name.lowercased().contains("mitmproxy"))
        #expect(dumped.log.entries.count == 3)

        // mitmproxy files requests under the upstream's URL, where the replaying client points.
        let offline = RecordedAPI(
            baseURL: server.url("").absoluteString, transport: try Cassette(file: har, mode: .none))
        #expect(try await offline.request(route: offline.get(endpoint: "/items/a")).value == item)
        #expect(
            try await offline.request(
                route: offline.post(endpoint: "/items"),
                parameters: JSONParameters(RecordedAPI.Item(name: "b", count: 5))
            ).value == created)
        let replayedLogo: Data = try await offline.request(route: offline.get(endpoint: "/logo")).value
        #expect(replayedLogo == png)
    }
}

/// mitmproxy's mitmdump as a reverse proxy that dumps what it carried to a HAR file when it stops.
struct Mitmdump {
    let process: ChildProcess
    let url: URL

    static func start(upstream: URL, dump: URL, confdir: URL) async throws -> Mitmdump {
        let mitmdump = try #require(ProcessInfo.processInfo.environment["OSPREY_MITMDUMP"])
        let process = try ChildProcess(
            mitmdump,
            [
                "--mode", "reverse:\(upstream.absoluteString)", "--listen-host", "127.0.0.1", "--listen-port",
                "0",
                "--set", "hardump=\(dump.path)", "--set",
                "confdir=\(confdir.appendingPathComponent("mitmproxy").path)",
            ],
            standardOutput: .pipe, standardError: .output)
        // "reverse proxy to http://… listening at 127.0.0.1:PORT."
        let line = await Blocking.run { () -> String in
            guard let output = process.output else { return "" }
            var text = output.read(until: "listening at")
            while let marker = text.range(of: "listening at"), !text[marker.upperBound...].contains("\n") {
                let more = output.read()
                if more.isEmpty { break }
                text += String(decoding: more, as: UTF8.self)
            }
            return text
        }
        guard let range = line.range(of: "listening at 127.0.0.1:"),
            let port = Int(line[range.upperBound...].prefix { $0.isNumber })
        else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: line]) }
        return Mitmdump(process: process, url: URL(string: "http://127.0.0.1:\(port)")!)
    }

    /// Stops it as Ctrl-C would, so that it writes the dump, and waits for it.
    func stop() async throws {
        kill(process.processIdentifier, SIGINT)
        let status = await Blocking.run { process.wait() }
        #expect(status == 0 || status == 128 + SIGINT, "mitmdump exited with \(status)")
    }
}
