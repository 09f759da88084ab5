#if os(Linux)
    import Foundation
    import OspreyTesting

    /// Python's `websockets` serving `websocket_server.py` on loopback: an independent
    /// implementation of RFC 6455 for the client to talk to. Needs `OSPREY_PYTHON`, the venv's
    /// python that Scripts/with-httpbin.sh (and so Scripts/test.sh) exports.
    final class WebSocketServer: Sendable {
        static var python: String? { ProcessInfo.processInfo.environment["OSPREY_PYTHON"] }
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("websocket_server.py").path

        private let process: ChildProcess
        let port: Int

        /// Starts the server and waits until it listens: over TLS with `certificate` and `key`,
        /// or on the Unix domain socket `unixSocket`; accepting permessage-deflate when `deflate`,
        /// with `deflateParameters` (websocket_server.py says which) when given.
        static func start(
            certificate: URL? = nil, key: URL? = nil, unixSocket: String? = nil, deflate: Bool = false,
            deflateParameters: String? = nil
        ) async throws -> WebSocketServer {
            var arguments: [String] = deflate ? ["--deflate"] + (deflateParameters.map { [$0] } ?? []) : []
            if let certificate, let key { arguments += ["--tls", certificate.path, key.path] }
            if let unixSocket { arguments += ["--unix", unixSocket] }
            return try await Blocking.run { [arguments] in try WebSocketServer(arguments: arguments) }
        }

        @available(*, noasync, message: "waits for the server to start; use start()")
        private init(arguments: [String]) throws {
            guard let python = Self.python else { throw CocoaError(.executableNotLoadable) }
            process = try ChildProcess(python, [Self.script] + arguments, standardError: .pipe)
            let log = process.errors?.read(until: "\n") ?? ""
            guard let range = log.range(of: "PORT "),
                let port = Int(log[range.upperBound...].prefix { $0.isNumber })
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: log]) }
            self.port = port
        }

        /// `ws://127.0.0.1:PORT`.
        var baseURL: String { "ws://127.0.0.1:\(port)" }

        func stop() {
            process.stop()
        }
    }
#endif
