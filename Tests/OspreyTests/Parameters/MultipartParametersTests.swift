import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("MultipartParameters: RFC 7578 bodies")
struct MultipartParametersTests {
    private func body(_ parameters: MultipartParameters) throws -> (text: String, contentType: String?) {
        let request = try Route.post("https://h/upload").makeURLRequest(parameters: parameters)
        return (
            String(decoding: request.httpBody ?? Data(), as: UTF8.self),
            request.value(forHTTPHeaderField: "Content-Type")
        )
    }

    @Test("a fixed boundary gives a byte-exact body: parts in order, repeated names kept")
    func golden() throws {
        let parameters = MultipartParameters(
            parts: [
                Part(name: "tag", value: "a"),
                Part(
                    mimeType: .png, data: Data([0x89, 0x50]),
                    attributes: ["name": "picture", "filename": "a.png"]),
                Part(name: "tag", value: "b"),
            ],
            boundary: "BOUNDARY"
        )
        let (text, contentType) = try body(parameters)
        #expect(contentType == "multipart/form-data; boundary=BOUNDARY")
        #expect(
            text == "--BOUNDARY\r\nContent-Disposition: form-data; name=\"tag\"\r\n\r\na\r\n"
                + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"picture\"; filename=\"a.png\"\r\n"
                + "Content-Type: image/png\r\n\r\n\u{FFFD}P\r\n"
                + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"tag\"\r\n\r\nb\r\n--BOUNDARY--\r\n"
        )
    }

    @Test(
        "names and file names cannot create headers or parts",
        arguments: [
            ("a\"; filename=\"x", "a%22; filename=%22x"),
            ("line\r\nX-Injected: 1", "line%0D%0AX-Injected: 1"),
            ("back\\slash", "back\\slash"),
        ])
    func escaping(name: String, escaped: String) throws {
        let parameters = MultipartParameters(
            parts: [Part(name: name, data: Data("v".utf8), filename: name)], boundary: "B")
        let (text, _) = try body(parameters)
        #expect(text.contains("name=\"\(escaped)\"; filename=\"\(escaped)\"\r\n"))
        #expect(text.components(separatedBy: "\r\n--B").count == 2)
        #expect(!text.contains("\r\nX-Injected"))
    }

    @Test("a fixed boundary found in a part is refused before anything is sent, like a random one is avoided")
    func fixedBoundaryCollision() throws {
        let parameters = MultipartParameters(
            parts: [Part(name: "a", value: "fine"), Part(name: "b", value: "x\r\n--BOUNDARY\r\nforged")],
            boundary: "BOUNDARY")
        #expect {
            try Route.post("https://h/p").makeURLRequest(parameters: parameters)
        } throws: { error in
            guard case APIError.encodingFailed(let reason, _) = error else { return false }
            return reason.contains("\"b\"") && reason.contains("fixed boundary")
        }
    }

    @Test("settings change on one thread while another builds requests (a race ThreadSanitizer would see)")
    func concurrentSettings() {
        let parameters = MultipartParameters(parts: [Part(name: "a", value: "x")])
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 0..<1_000 {
                if thread == 0 {
                    parameters.inMemoryLimit = 1_000 + index
                } else {
                    _ = try? Route.post("https://h/p").makeURLRequest(parameters: parameters)
                }
            }
        }
        #expect(parameters.inMemoryLimit == 1_999)
    }

    @Test("a non-ASCII file name gets filename* with an ASCII fallback")
    func unicodeFilename() throws {
        let parameters = MultipartParameters(
            parts: [Part(name: "f", data: Data(), filename: "résumé.pdf")], boundary: "B")
        let (text, _) = try body(parameters)
        #expect(text.contains("filename=\"r_sum_.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf\r\n"))
    }

    @Test("boundaries are random, at least 96 bits, RFC 2046 characters, at most 70 long, unique")
    func boundaries() async throws {
        // On a thread of its own: 10,000 bodies take long under ThreadSanitizer, and would stall
        // other tests on the cooperative pool or Dispatch's global queues.
        let boundaries = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try (0..<10_000).map { _ in
                            let parameters = MultipartParameters(parts: [Part(name: "a", value: "b")])
                            let contentType = try body(parameters).contentType ?? ""
                            return String(contentType.split(separator: "=").last ?? "")
                        }
                    })
            }.start()
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        #expect(boundaries.allSatisfy { $0.count <= 70 && $0.count >= 27 })
        #expect(boundaries.allSatisfy { $0.allSatisfy { allowed.contains($0) } })
        #expect(Set(boundaries).count == 10_000)
    }

    @Test("fields of an Encodable value come first, then the parts")
    func fields() throws {
        struct Product: Encodable, Sendable {
            var name: String
            var price: Double
            var tags: [String]
            var onSale: Bool
            var note: String?
        }
        let product = Product(name: "Lamp", price: 12.5, tags: ["a", "b"], onSale: true, note: nil)
        let parameters = MultipartParameters(
            product, parts: [Part(name: "file", value: "x")], headers: ["X-T": "1"], boundary: "B")
        let (text, _) = try body(parameters)
        let names = text.components(separatedBy: "name=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(names == ["name", "onSale", "price", "tags", "tags", "file"])
        #expect(text.contains("name=\"onSale\"\r\n\r\ntrue\r\n"))
        #expect(text.contains("name=\"price\"\r\n\r\n12.5\r\n"))
    }

    @Test("a multipart body on GET is refused")
    func noBodyOnGet() {
        #expect(throws: APIError.self) {
            try Route.get("https://h").makeURLRequest(
                parameters: MultipartParameters(parts: [Part(name: "a", value: "b")]))
        }
    }

    @Test(
        "MIME types are inferred from one table on every platform",
        arguments: [
            ("PNG", "image/png"), ("jpg", "image/jpeg"), ("pdf", "application/pdf"),
            ("json", "application/json"),
            ("txt", "text/plain; charset=utf-8"), ("mov", "video/quicktime"),
            ("unknown", "application/octet-stream"),
        ])
    func mimeTypes(pathExtension: String, expected: String) {
        #expect(MimeType.inferred(fromPathExtension: pathExtension).rawValue == expected)
    }

    @Test(
        "httpbin parses the escaped body back into exactly the intended fields and files",
        .enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set: run the tests with Scripts/test.sh")
    )
    func httpbinParsesBack() async throws {
        struct Echo: Decodable {
            var form: [String: String]
            var files: [String: String]
        }
        let parameters = MultipartParameters(parts: [
            Part(name: "a\"b", value: "quoted name"),
            Part(
                name: "upload", data: Data("file body".utf8), filename: "x\"; name=\"evil.txt",
                mimeType: .plainText),
        ])
        let route = Route.post(Httpbin.baseURL!.appendingPathComponent("post").absoluteString)
        let (data, _) = try await URLSession(configuration: .ephemeral).fetch(
            try route.makeURLRequest(parameters: parameters))
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.form == ["a\"b": "quoted name"])
        #expect(echo.files == ["upload": "file body"])
    }
}
