#if os(Linux)
    import Foundation
    import OspreyTesting

    /// `connect_proxy.py`: an HTTP proxy that only tunnels (CONNECT), reporting each request head
    /// it reads. Needs `OSPREY_PYTHON`, as ``WebSocketServer`` does.
    final class ConnectProxy: Sendable {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("connect_proxy.py").path

        /// A request head the proxy read.
        struct Seen: Decodable, Equatable {
            var method: String
            var target: String
            var authorization: String?
        }

        private let process: ChildProcess
        let port: Int

        /// Starts the proxy and waits until it listens.
        static func start() async throws -> ConnectProxy {
            try await Blocking.run { try ConnectProxy() }
        }

        @available(*, noasync, message: "waits for the proxy to start; use start()")
        private init() throws {
            guard let python = WebSocketServer.python else { throw CocoaError(.executableNotLoadable) }
            process = try ChildProcess(python, [Self.script], standardError: .pipe)
            let log = process.errors?.read(until: "\n") ?? ""
            guard let range = log.range(of: "PORT "),
                let port = Int(log[range.upperBound...].prefix { $0.isNumber })
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: log]) }
            self.port = port
        }

        /// `http://127.0.0.1:PORT`.
        var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

        /// The first request head the proxy read (waits for it).
        func firstSeen() async throws -> Seen {
            let log = await Blocking.run { [process] in process.errors?.read(until: "}\n") ?? "" }
            guard let start = log.range(of: "SAW "), let end = log[start.upperBound...].firstIndex(of: "\n")
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: log]) }
            return try JSONDecoder().decode(Seen.self, from: Data(log[start.upperBound..<end].utf8))
        }

        func stop() {
            process.stop()
        }
    }
#endif
