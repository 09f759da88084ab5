#if os(Linux)
    import Foundation
    import OspreyTestSupport
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// The pins URLSessionTransport computes on Apple platforms (SHA-256 of a SubjectPublicKeyInfo
    /// rebuilt around the raw key the Security framework gives), checked here against openssl and
    /// Python's hashlib; and what URLSessionTransport does with TLS options it cannot apply.
    @Suite("Transport: public-key pins and URLSessionTransport's TLS options", .onItsOwnThread)
    struct PublicKeyPinTests {
        private static func hex(_ bytes: [UInt8]) -> String {
            bytes.map { String(format: "%02x", $0) }.joined()
        }

        @Test("SHA-256 of the FIPS 180-4 examples")
        func sha256Examples() {
            #expect(
                Self.hex(SHA256.digest([]))
                    == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            #expect(
                Self.hex(SHA256.digest(Array("abc".utf8)))
                    == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            #expect(
                Self.hex(
                    SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                    == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
            #expect(
                Self.hex(SHA256.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                    == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        }

        @Test("SHA-256 agrees with Python's hashlib on every length from 0 to 300 bytes (each padding case)")
        func sha256Lengths() throws {
            let message = { (count: Int) in (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }
            let (status, output) = try ChildProcess.run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import hashlib\nfor n in range(301): print(hashlib.sha256(bytes((i * 7 + 3) % 256 for i in range(n))).hexdigest())",
                ])
            try #require(status == 0, "\(output)")
            let expected = output.split(separator: "\n").map(String.init)
            try #require(expected.count == 301)
            for count in 0...300 {
                #expect(Self.hex(SHA256.digest(message(count))) == expected[count], "length \(count)")
            }
        }

        /// A key made by openssl: its DER SubjectPublicKeyInfo, the raw key as the Security
        /// framework would give it, and its pin made the way the documentation says.
        private struct MadeKey {
            var subjectPublicKeyInfo: [UInt8]
            var raw: [UInt8]
            var pin: String
        }

        private func makeKey(_ generate: [String], rawFromRSA: Bool, pointBytes: Int = 0) throws -> MadeKey {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "osprey-pin-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            func openssl(_ arguments: [String]) throws {
                let (status, output) = try ChildProcess.run(
                    "/usr/bin/env", ["openssl"] + arguments, directory: folder.path)
                try #require(status == 0, "openssl \(arguments): \(output)")
            }
            try openssl(generate + ["-out", "key.pem"])
            try openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "der", "-out", "spki.der"])
            let spki = [UInt8](try Data(contentsOf: folder.appendingPathComponent("spki.der")))
            let raw: [UInt8]
            if rawFromRSA {
                try openssl([
                    "rsa", "-in", "key.pem", "-RSAPublicKey_out", "-outform", "der", "-out", "raw.der",
                ])
                raw = [UInt8](try Data(contentsOf: folder.appendingPathComponent("raw.der")))
            } else {
                // The uncompressed point (0x04, x, y) ends the SubjectPublicKeyInfo.
                raw = Array(spki.suffix(pointBytes))
                try #require(raw.first == 0x04)
            }
            let (status, pin) = try ChildProcess.run(
                "/bin/sh", ["-c", "openssl dgst -sha256 -binary spki.der | base64"], directory: folder.path)
            try #require(status == 0, "\(pin)")
            return MadeKey(
                subjectPublicKeyInfo: spki, raw: raw, pin: pin.trimmingCharacters(in: .whitespacesAndNewlines)
            )
        }

        @Test(
            "a SubjectPublicKeyInfo rebuilt from a raw RSA key or EC point is openssl's, and so is its pin",
            arguments: [
                (
                    ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                    PublicKeyPin.KeyKind.rsa, 0
                ),
                (["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:4096"], .rsa, 0),
                (
                    ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                    .ellipticCurve(bits: 256), 65
                ),
                (
                    ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
                    .ellipticCurve(bits: 384), 97
                ),
                (
                    ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
                    .ellipticCurve(bits: 521), 133
                ),
            ])
        func rebuiltKeys(generate: [String], kind: PublicKeyPin.KeyKind, pointBytes: Int) throws {
            let key = try makeKey(generate, rawFromRSA: kind == .rsa, pointBytes: pointBytes)
            let rebuilt = try #require(PublicKeyPin.subjectPublicKeyInfo(kind: kind, rawKey: key.raw))
            #expect(rebuilt == key.subjectPublicKeyInfo)
            #expect(PublicKeyPin.pin(ofSubjectPublicKeyInfo: rebuilt) == key.pin)
        }

        @Test("a curve pins cannot name gives no SubjectPublicKeyInfo (the pin check then fails)")
        func unknownCurve() {
            #expect(
                PublicKeyPin.subjectPublicKeyInfo(kind: .ellipticCurve(bits: 224), rawKey: [4, 1, 2]) == nil)
        }

        /// GET /hello through URLSessionTransport with `tls`, against a server that counts connections.
        private func fetch(tls: TLSOptions) async throws -> (Result<String, APIError>, connections: Int) {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }
            let api = TestAPI(server, transport: URLSessionTransport(tls: tls))
            let result: Result<String, APIError>
            switch await (api.request(route: api.get(endpoint: "/hello")) as Promise<String>).result {
            case .success(let text): result = .success(text)
            case .failure(let error as APIError): result = .failure(error)
            case .failure(let error): throw error
            }
            return (result, server.acceptedConnectionCount)
        }

        @Test(
            "on Linux URLSessionTransport refuses pins, client certificates, other roots and TLS 1.3 before any I/O",
            arguments: [
                (TLSOptions(pinnedPublicKeys: ["AAAA"]), "pinned public keys"),
                (
                    TLSOptions(clientCertificate: URL(fileURLWithPath: "/tmp/client.pem")),
                    "a client certificate from PEM files"
                ),
                (TLSOptions(trustsSystemCertificates: false), "trust roots other than the system's"),
                (TLSOptions(minimumVersion: .tls13), "a minimum TLS version of 1.3"),
            ])
        func refusesWhatItCannotApply(tls: TLSOptions, missing: String) async throws {
            let (result, connections) = try await fetch(tls: tls)
            guard case .failure(.invalidRequest(let reason)) = result else {
                Issue.record("expected invalidRequest, got \(result)")
                return
            }
            #expect(reason.contains(missing), "\(reason)")
            #expect(reason.contains("use CurlTransport"), "\(reason)")
            #expect(connections == 0)
        }

        @Test("the default TLS options, and blank pins, change nothing for URLSessionTransport")
        func defaultsAccepted() async throws {
            for tls in [TLSOptions(), TLSOptions(pinnedPublicKeys: [" ", ""])] {
                let (result, connections) = try await fetch(tls: tls)
                #expect(try result.get() == "hello")
                #expect(connections == 1)
            }
        }
    }
#endif
