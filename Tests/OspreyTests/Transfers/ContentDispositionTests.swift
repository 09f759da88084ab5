import Foundation
import OspreyTesting
import Testing

@testable import Osprey

@Suite("Transfers: downloads into a folder, under the server's name")
struct ContentDispositionTests {
    @Test(
        "the suggested name, read and made safe",
        arguments: [
            (#"attachment; filename="report.pdf""#, "report.pdf"),
            (#"attachment; filename=plain.txt"#, "plain.txt"),
            (#"attachment; filename="a \"quoted\" name.txt""#, #"a "quoted" name.txt"#),
            (
                #"attachment; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt"#,
                "naïve résumé.txt"
            ),
            (#"attachment; filename="../../etc/passwd""#, "passwd"),
            (#"attachment; filename="..""#, "fallback"),
            (#"attachment; filename=".""#, "fallback"),
            (#"attachment; filename="/absolute/path.txt""#, "path.txt"),
            (#"attachment; filename="C:\\Windows\\evil.exe""#, "evil.exe"),
            ("attachment; filename=\"nul\u{0}byte.txt\"", "nulbyte.txt"),
            (#"attachment; filename="a/""#, "a"),
            (#"attachment; filename="""#, "fallback"),
            (#"attachment; filename=".hidden""#, "hidden"),
            (#"attachment"#, "fallback"),
        ])
    func names(header: String, expected: String) {
        let suggested = ContentDisposition.filename(in: header) ?? ""
        #expect(ContentDisposition.safeFilename(suggested, fallback: "fallback") == expected)
    }

    @Test(
        "a mark that prepends to the next scalar does not hide a separator (fuzzing found it)",
        arguments: ["a\u{070F}/passwd", "\u{FFFD}9.\u{070F}/\u{FFFD}9.\u{070F}", "x\u{0600}\\evil.exe"])
    func prependedSeparator(raw: String) {
        let name = ContentDisposition.safeFilename(raw, fallback: "fallback")
        #expect(
            !name.unicodeScalars.contains("/") && !name.unicodeScalars.contains("\\"),
            "\(name.debugDescription)")
        #expect(!name.isEmpty)
    }

    @Test("a very long name is cut to 255 bytes, its extension kept")
    func longName() {
        let name = ContentDisposition.safeFilename(
            String(repeating: "é", count: 300) + ".tar.gz", fallback: "x")
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix(".gz"))
        #expect(name.hasPrefix("éé"))
    }

    @Test("whatever the server suggests, the file lands inside the folder")
    func intoFolder() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/files/:name") { request in
            let suggested = request.pathParameters["name"] == "evil" ? "../../escape.txt" : "report.pdf"
            return LoopbackServer.Response.text("content of \(request.pathParameters["name"]!)")
                .adding(header: "Content-Disposition", "attachment; filename=\"\(suggested)\"")
        }
        server.route("/plain/data.csv") { _ in .text("a,b") }
        let api = TestAPI(server)
        let report = try await api.download(route: api.get(endpoint: "/files/report"), into: folder.url).value
        #expect(report.lastPathComponent == "report.pdf")
        let evil = try await api.download(route: api.get(endpoint: "/files/evil"), into: folder.url).value
        #expect(evil.lastPathComponent == "escape.txt")
        #expect(
            evil.deletingLastPathComponent().standardizedFileURL.path == folder.url.standardizedFileURL.path)
        #expect(try String(contentsOf: evil, encoding: .utf8) == "content of evil")
        let csv = try await api.download(route: api.get(endpoint: "/plain/data.csv"), into: folder.url).value
        #expect(csv.lastPathComponent == "data.csv")
        #expect(folder.contents == ["data.csv", "escape.txt", "report.pdf"])

        // The same name again is refused unless overwriting is allowed.
        let again = try #require(
            await api.download(route: api.get(endpoint: "/files/report"), into: folder.url).apiError)
        guard case .fileFailed = again else {
            Issue.record("expected fileFailed, got \(again)")
            return
        }
        #expect(folder.contents == ["data.csv", "escape.txt", "report.pdf"])
        _ = try await api.download(
            route: api.get(endpoint: "/files/report"), into: folder.url, overwrite: true
        ).value
    }
}
