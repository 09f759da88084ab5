#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// What the libcurl transport guards below the wire contract: the protocols libcurl may
    /// speak, and the descriptors it leaves open.
    @Suite("Transport: CurlTransport's own guards")
    struct CurlWireTests {
        @Test("libcurl itself speaks only http and https: a file URL that got past the check reads nothing")
        func onlyHTTP() async throws {
            let transport = try #require(CurlTransport())
            let secret = FileManager.default.temporaryDirectory.appendingPathComponent(
                "osprey-secret-\(UUID())")
            try Data("the-secret-bytes".utf8).write(to: secret)
            defer { try? FileManager.default.removeItem(at: secret) }
            let result = await transport.sendSkippingWireContract(
                TransportRequest(urlRequest: URLRequest(url: secret))
            )
            .result
            guard case .failure(let error as APIError) = result else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            // CURLE_UNSUPPORTED_PROTOCOL (1).
            let words = (error.underlyingError as? URLError)?.userInfo[NSLocalizedDescriptionKey] as? String
            #expect(words?.contains("Unsupported protocol (1)") == true, "\(words ?? "\(error)")")
            #expect(error.data.map { String(decoding: $0, as: UTF8.self) }?.contains("the-secret") != true)
        }

        @Test("a body file is opened close-on-exec: a process started during the upload does not inherit it")
        func bodyFileCloseOnExec() async throws {
            let server = try LoopbackServer(configuration: .init(pausesReadingAfter: 1024))
            defer { server.stop() }
            server.route("POST", "/upload") { _ in .text("ok") }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "osprey-upload-\(UUID())")
            try Data(repeating: 0x61, count: 4 << 20).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let api = TestAPI(server, parser: JSONParser(), transport: CurlTransport())
            let upload: Promise<String> = api.request(
                route: api.post(endpoint: "/upload"), parameters: FileParameters(fileURL: file))
            // The server stops reading after 1 KiB: the upload is under way, its file open.
            #expect(await server.waitForReceivedBytes(atLeast: 1024))
            let descriptors = try openDescriptors(of: file)
            #expect(!descriptors.isEmpty, "the body file should be open during the upload")
            for descriptor in descriptors {
                #expect(
                    fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(descriptor) lacks FD_CLOEXEC")
            }
            upload.cancel()
            server.resumeReading()
        }

        /// This process's descriptors open on `file`.
        private func openDescriptors(of file: URL) throws -> [Int32] {
            let folder = "/proc/self/fd"
            let target = file.resolvingSymlinksInPath().path
            return try FileManager.default.contentsOfDirectory(atPath: folder).compactMap { name in
                guard
                    let link = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "\(folder)/\(name)"),
                    link == target || link == file.path
                else { return nil }
                return Int32(name)
            }
        }
    }
#endif
