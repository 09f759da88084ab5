import Foundation
import Osprey
import OspreyTesting
import Promises
import Testing

@Suite("Cassette: multipart uploads listed part by part, matched without their boundary, redacted inside")
struct CassetteMultipartTests {
    private static func upload(
        _ api: RecordedAPI, title: String, file: URL, password: String = "pw-3141"
    ) -> Promise<RecordedAPI.Item> {
        api.request(
            route: api.post(endpoint: "/upload"),
            parameters: MultipartParameters(parts: [
                .init(name: "title", value: title),
                .init(name: "password", value: password),
                .init(name: "file", fileURL: file, mimeType: "application/octet-stream"),
            ])
        )
    }

    @Test("the recorded upload lists its fields and files; the same parts under a new boundary replay")
    func listedAndMatched() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        server.route("POST", "/upload") { _ in .json(#"{"name": "stored", "count": 1}"#, status: 201) }
        let file = folder.url.appendingPathComponent("photo.bin")
        try Data([0, 1, 2, 0xff, 0x0d, 0x0a]).write(to: file)
        let baseURL = server.url("").absoluteString
        var redaction = HARRedaction()
        redaction.queryItems = ["password"]
        redaction.secrets = ["pw-3141"]
        let recorder = try Cassette(
            file: folder.file(), transport: liveTransport(), matching: .methodAndURL.body,
            redaction: redaction)
        _ = try await Self.upload(
            RecordedAPI(baseURL: baseURL, transport: recorder), title: "holiday", file: file
        ).value
        server.stop()

        let postData = try #require(
            HAR(data: Data(contentsOf: folder.file())).log.entries.first?.request.postData)
        #expect(postData.mimeType.hasPrefix("multipart/form-data; boundary="))
        #expect(
            postData.params == [
                HAR.Param(name: "title", value: "holiday"),
                HAR.Param(name: "password", value: "REDACTED"),
                HAR.Param(
                    name: "file", value: nil, fileName: "photo.bin", contentType: "application/octet-stream"),
            ])
        // The field is blanked inside the body too, not only in the list.
        let body = String(decoding: try #require(Data(base64Encoded: postData.text ?? "")), as: UTF8.self)
        #expect(body.contains("REDACTED"))
        #expect(!body.contains("pw-3141"))

        // Sent again, the body has another random boundary; it matches part by part.
        let player = try Cassette(
            file: folder.file(), mode: .none, matching: .methodAndURL.body, redaction: redaction)
        let api = RecordedAPI(baseURL: baseURL, transport: player)
        #expect(try await Self.upload(api, title: "holiday", file: file).value.name == "stored")
        let other = try Cassette(
            file: folder.file(), mode: .none, matching: .methodAndURL.body, redaction: redaction)
        let changed = await Self.upload(
            RecordedAPI(baseURL: baseURL, transport: other), title: "work", file: file
        ).result
        guard case .failure(APIError.transport(let unmatched as Cassette.Unmatched, _)) = changed else {
            Issue.record("another title must not match, got \(changed)")
            return
        }
        #expect(unmatched.nearest?.hasSuffix("/upload") == true)
    }
}
