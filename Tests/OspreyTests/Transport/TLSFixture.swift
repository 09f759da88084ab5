#if os(Linux)
    import Foundation
    import OspreyTesting

    /// Certificates made at test time with the `openssl` command line (a CA, a certificate for
    /// `localhost` signed by it, an expired one, and a client certificate), and HTTPS servers run
    /// by python3's standard library with them. Each fixture has a temporary folder of its own,
    /// removed by ``stop()``.
    ///
    /// Everything here blocks (child processes, pipes), so it is `noasync`: async tests call
    /// ``make()`` and the `async` overloads, which run it on a thread of their own.
    final class TLSFixture: @unchecked Sendable {
        // @unchecked: a test makes and uses its fixture from one task at a time.
        let folder: URL
        private var servers: [ChildProcess] = []

        var authority: URL { folder.appendingPathComponent("ca.pem") }

        /// Makes a fixture on a thread of its own.
        static func make() async throws -> TLSFixture {
            try await Blocking.run { try TLSFixture() }
        }

        @available(*, noasync, message: "runs openssl; use TLSFixture.make()")
        init() throws {
            let material = try Self.material.get()
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "osprey-tls-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: material, to: folder)
            try Self.write(server: folder.appendingPathComponent("server.py"))
        }

        /// The keys and certificates, made once per process: RSA key generation takes a good part
        /// of a second of CPU per key, and the suites make a dozen fixtures side by side.
        private static let material: Result<URL, any Error> = Result {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "osprey-tls-material-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            atexit { try? FileManager.default.removeItem(at: TLSFixture.materialFolder) }
            materialFolder = folder
            try makeMaterial(in: folder)
            return folder
        }

        /// Where ``material`` lives, for the exit handler to remove it.
        nonisolated(unsafe) private static var materialFolder = URL(fileURLWithPath: "/nonexistent")

        private static func makeMaterial(in folder: URL) throws {
            let run = { (tool: String, arguments: [String]) in try Self.run(tool, arguments, in: folder) }
            try "subjectAltName=DNS:localhost\n".write(
                to: folder.appendingPathComponent("ext.cnf"), atomically: true, encoding: .utf8)
            try run(
                "openssl",
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                    "-days", "2",
                    "-subj", "/CN=Osprey Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign",
                ])
            try run(
                "openssl",
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                    "-subj", "/CN=localhost",
                ])
            for (name, days) in [("server.pem", "2"), ("expired.pem", "-1")] {
                try run(
                    "openssl",
                    [
                        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                        "-CAcreateserial",
                        "-out", name, "-days", days, "-extfile", "ext.cnf",
                    ])
            }
            try run(
                "openssl",
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr",
                    "-subj", "/CN=osprey-client",
                ])
            try run(
                "openssl",
                [
                    "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                    "-CAcreateserial",
                    "-out", "client.pem", "-days", "2",
                ])
            // The pin of `server.pem`'s key, made the way the documentation says.
            try run("openssl", ["x509", "-in", "server.pem", "-pubkey", "-noout", "-out", "server.pub"])
            try run(
                "openssl", ["pkey", "-pubin", "-in", "server.pub", "-outform", "der", "-out", "server.der"])
            try run("openssl", ["dgst", "-sha256", "-binary", "-out", "server.pin", "server.der"])
        }

        /// How a test server's TLS differs from the plain one.
        enum ServerMode: String {
            case plain
            /// Asks for a client certificate signed by the fixture's CA, and refuses a client without one.
            case clientCertificateRequired = "mtls"
            /// Speaks TLS 1.2 at most.
            case tls12Only = "tls12"
        }

        /// A client certificate and key signed by the fixture's CA (`client.pem`, `client.key`).
        func makeClientCertificate() -> (certificate: URL, key: URL) {
            (folder.appendingPathComponent("client.pem"), folder.appendingPathComponent("client.key"))
        }

        /// The pin of `server.pem`'s key: base64 of the SHA-256 of its SubjectPublicKeyInfo, made
        /// the way the documentation says (openssl), for comparison with what libcurl checks.
        func serverKeyPin() throws -> String {
            try Data(contentsOf: folder.appendingPathComponent("server.pin")).base64EncodedString()
        }

        /// Starts an HTTPS server on a free port with the certificate `name` (`server.pem` or
        /// `expired.pem`); `/redirect` answers 302 to `redirect`, anything else echoes the path
        /// and the Authorization header as JSON. Returns the port.
        func startServer(
            certificate name: String, redirect: String = "/", mode: ServerMode = .plain
        ) async throws -> Int {
            try await Blocking.run { try self.startServer(certificate: name, redirect: redirect, mode: mode) }
        }

        @available(*, noasync, message: "waits for python to start; use the async overload")
        func startServer(certificate name: String, redirect: String = "/", mode: ServerMode = .plain) throws
            -> Int
        {
            let server = try ChildProcess(
                "/usr/bin/env", ["python3", "server.py", name, "server.key", redirect, mode.rawValue],
                directory: folder.path, standardOutput: .pipe)
            servers.append(server)
            // The server prints its port once it listens.
            let line = server.output?.read(until: "\n") ?? ""
            guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            return port
        }

        /// The HTTP/2 server the tests start (Hypercorn, installed beside httpbin by
        /// Scripts/with-httpbin.sh), or nil when the tests run without it.
        static var hypercorn: String? { ProcessInfo.processInfo.environment["OSPREY_HYPERCORN"] }

        /// Starts Hypercorn over TLS (`server.pem`, ALPN offering `h2` and `http/1.1`), or over
        /// plain http (HTTP/1.1, or HTTP/2 to a client that starts with its preface), with an
        /// app that answers `{"version": …, "path": …, "client": …}`: the HTTP version the
        /// server saw, and the client's port (which tells connections apart).
        ///
        /// A request for `/gather/NAME/COUNT/…` is answered only once COUNT requests of the group
        /// NAME have arrived (or after 30 s): a test that counts what is in flight as it sends
        /// does not depend on how fast a loaded machine runs it, since no request of the group can
        /// end before the last one is sent. Returns the port.
        func startHTTP2Server(tls: Bool = true) async throws -> Int {
            try await Blocking.run { try self.startHTTP2Server(tls: tls) }
        }

        @available(*, noasync, message: "waits for Hypercorn to start; use the async overload")
        func startHTTP2Server(tls: Bool = true) throws -> Int {
            try startHypercorn(
                app: """
                    import asyncio, json

                    class Group:
                        def __init__(self):
                            self.arrived = 0
                            self.complete = asyncio.Event()

                    groups = {}

                    async def app(scope, receive, send):
                        if scope["type"] != "http":
                            return
                        parts = scope["path"].split("/")
                        if len(parts) > 3 and parts[1] == "gather":
                            group = groups.setdefault(parts[2], Group())
                            group.arrived += 1
                            if group.arrived >= int(parts[3]):
                                group.complete.set()
                            try:
                                await asyncio.wait_for(group.complete.wait(), 30)
                            except asyncio.TimeoutError:
                                pass
                        body = json.dumps({"version": scope["http_version"], "path": scope["path"],
                                           "client": scope["client"][1]}).encode()
                        await send({"type": "http.response.start", "status": 200, "headers": [
                            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
                        await send({"type": "http.response.body", "body": body})

                    """, tls: tls)
        }

        /// Starts Hypercorn with the ASGI application `app` (Python source defining `app`):
        /// over TLS with `server.pem` (ALPN offering `h2` and `http/1.1`), or over plain http,
        /// where it speaks HTTP/1.1. Returns the port.
        func startHypercorn(app: String, tls: Bool) async throws -> Int {
            try await Blocking.run { try self.startHypercorn(app: app, tls: tls) }
        }

        @available(*, noasync, message: "waits for Hypercorn to start; use the async overload")
        func startHypercorn(app: String, tls: Bool) throws -> Int {
            guard let hypercorn = Self.hypercorn else { throw CocoaError(.executableNotLoadable) }
            let module = "app\(servers.count)"
            try app.write(
                to: folder.appendingPathComponent("\(module).py"), atomically: true, encoding: .utf8)
            // No worker processes: killing this one process stops the server (a worker would
            // outlive it).
            let server = try ChildProcess(
                hypercorn,
                // A connection idle for 5 s (Hypercorn's default) is not closed: on a loaded machine
                // a test's next round of requests may come later than that, and counts connections.
                ["--workers", "0", "--bind", "127.0.0.1:0", "--keep-alive", "600"]
                    + (tls ? ["--certfile", "server.pem", "--keyfile", "server.key"] : []) + [
                        "\(module):app"
                    ],
                directory: folder.path, standardError: .pipe)
            servers.append(server)
            // Hypercorn logs "Running on http(s)://127.0.0.1:PORT (CTRL + C to quit)" once it listens.
            let log = server.errors?.read(until: "(CTRL") ?? ""
            guard let range = log.range(of: "://127.0.0.1:"),
                let port = Int(log[range.upperBound...].prefix { $0.isNumber })
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: log]) }
            return port
        }

        func stop() {
            for server in servers { server.stop() }
            try? FileManager.default.removeItem(at: folder)
        }

        private static func run(_ tool: String, _ arguments: [String], in folder: URL) throws {
            let (status, output) = try ChildProcess.run(
                "/usr/bin/env", [tool] + arguments, directory: folder.path)
            guard status == 0 else {
                throw CocoaError(
                    .executableLoad,
                    userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) failed: \(output)"])
            }
        }

        private static func write(server file: URL) throws {
            let script = """
                import http.server, json, ssl, sys

                certificate, key, location, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]

                class Handler(http.server.BaseHTTPRequestHandler):
                    protocol_version = "HTTP/1.1"

                    def do_GET(self):
                        if self.path == "/redirect":
                            self.send_response(302)
                            self.send_header("Location", location)
                            self.send_header("Content-Length", "0")
                            self.end_headers()
                            return
                        body = json.dumps({"path": self.path, "authorization": self.headers.get("Authorization")})
                        body = body.encode()
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)

                    def log_message(self, *arguments):
                        pass

                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(certificate, key)
                if mode == "mtls":
                    context.verify_mode = ssl.CERT_REQUIRED
                    context.load_verify_locations("ca.pem")
                elif mode == "tls12":
                    context.maximum_version = ssl.TLSVersion.TLSv1_2
                server.socket = context.wrap_socket(server.socket, server_side=True)
                print(server.server_address[1], flush=True)
                server.serve_forever()

                """
            try script.write(to: file, atomically: true, encoding: .utf8)
        }
    }
#endif
