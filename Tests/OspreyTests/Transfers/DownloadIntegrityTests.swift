import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// A resumed download is always the same file as one full download, and what an interrupted one
/// left is complete and private. On the test transport (both, in CI).
@Suite("Transfers: downloads never mix, lose or leak bytes")
struct DownloadIntegrityTests {
    @Test(
        "a 206 of another version (a server that ignores If-Range) is never appended: it restarts from zero")
    func validatorMismatch() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let versionA = patternedData(count: 200_000, seed: 1)
        let versionB = patternedData(count: 200_000, seed: 2)
        let served = Counter()
        server.route("/file") { request in
            switch served.next() {
            case 1:
                return LoopbackServer.Response.ranged(versionA, for: request, etag: #""a""#)
                    .closingConnection(afterBodyBytes: 80_000)
            case 2:
                // Ignores If-Range: the rest of version B, as a 206 with B's validator.
                return LoopbackServer.Response(
                    status: 206,
                    headers: [
                        .init("ETag", #""b""#),
                        .init("Content-Range", "bytes 80000-199999/200000"),
                    ],
                    body: versionB.subdata(in: 80_000..<200_000))
            default:
                return .ranged(versionB, for: request, etag: #""b""#)
            }
        }
        let api = TestAPI(server)
        let destination = folder.file("file.bin")
        _ = await api.download(route: api.get(endpoint: "/file"), to: destination).result
        let saved = try await api.download(route: api.get(endpoint: "/file"), to: destination).value
        #expect(try Data(contentsOf: saved) == versionB)
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[1].value(forHeader: "Range") == "bytes=80000-")
        #expect(requests[1].value(forHeader: "If-Range") == #""a""#)
        #expect(requests[2].value(forHeader: "Range") == nil)
        #expect(folder.contents == ["file.bin"])
    }

    @Test(
        "a body sent with a Content-Encoding is saved decoded and never resumed: the next call starts again")
    func encodedBodyNotResumed() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 300_000)
        let served = Counter()
        server.route("/file") { request in
            // A store that keeps the object compressed sends it encoded even to `identity`.
            let encoded = LoopbackServer.Response.ranged(body, for: request, etag: #""v1""#).gzipped()
            return served.next() == 1 ? encoded.closingConnection(afterBodyBytes: 200_000) : encoded
        }
        let api = TestAPI(server)
        let destination = folder.file("file.bin")
        let first = await api.download(route: api.get(endpoint: "/file"), to: destination).result
        #expect(first.isFailure)
        let saved = try await api.download(route: api.get(endpoint: "/file"), to: destination).value
        #expect(try Data(contentsOf: saved) == body)
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests.allSatisfy { $0.value(forHeader: "Accept-Encoding") == "identity" })
        #expect(requests[1].value(forHeader: "Range") == nil)
    }

    @Test("a 206 that comes encoded though the partial file is not restarts from zero")
    func encodedRange() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 300_000)
        let served = Counter()
        server.route("/file") { request in
            switch served.next() {
            case 1:
                return LoopbackServer.Response.ranged(body, for: request, etag: #""v1""#)
                    .closingConnection(afterBodyBytes: 100_000)
            case 2:
                return LoopbackServer.Response.ranged(body, for: request, etag: #""v1""#).gzipped()
            default:
                return .ranged(body, for: request, etag: #""v1""#)
            }
        }
        let api = TestAPI(server)
        let destination = folder.file("file.bin")
        _ = await api.download(route: api.get(endpoint: "/file"), to: destination).result
        let saved = try await api.download(route: api.get(endpoint: "/file"), to: destination).value
        #expect(try Data(contentsOf: saved) == body)
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[1].value(forHeader: "Range") == "bytes=100000-")
        #expect(requests[2].value(forHeader: "Range") == nil)
    }

    @Test("a failed download settles once every byte that arrived is in the partial file (10 rounds)")
    func failureFlushesFirst() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 6 << 20)
        let cut = 5 << 20
        server.route("/file") { request in
            LoopbackServer.Response.ranged(body, for: request, etag: #""v1""#)
                .closingConnection(afterBodyBytes: request.value(forHeader: "Range") == nil ? cut : 0)
        }
        let api = TestAPI(server)
        for _ in 0..<10 {
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            let destination = folder.file("file.bin")
            let result = await api.download(route: api.get(endpoint: "/file"), to: destination).result
            #expect(result.isFailure)
            let partial = PartialDownload(besideFile: destination)
            #expect(partial.size == Int64(cut))
        }
    }

    @Test(
        "a download started as soon as another was cancelled resumes from its bytes, and the file is whole (10 rounds)"
    )
    func cancelThenResumeAtOnce() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 6 << 20)
        let served = Counter()
        server.route("/file") { request in
            let response = LoopbackServer.Response.ranged(body, for: request, etag: #""v1""#)
            return served.next().isMultiple(of: 2)
                ? response : response.pausingBody(afterBytes: 4 << 20, for: 3600)
        }
        let api = TestAPI(server)
        for _ in 0..<10 {
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            let destination = folder.file("file.bin")
            // The first settle wins: 3 MiB arrived, or the download ended early (which must fail
            // the test, not hang it).
            let (reached, resolver) = Promise<Bool>.pending()
            let first = api.download(route: api.get(endpoint: "/file"), to: destination).onProgress {
                if $0.completedBytes >= 3 << 20 { resolver.fulfill(true) }
            }
            first.finally { resolver.fulfill(false) }
            try #require(try await reached.value, "the first download ended before 3 MiB")
            first.cancel()
            let saved = try await api.download(route: api.get(endpoint: "/file"), to: destination).value
            #expect(try Data(contentsOf: saved) == body)
            let resumed = try #require(server.requests.last)
            let start = resumed.value(forHeader: "Range").flatMap { Int($0.dropFirst(6).dropLast()) }
            #expect((start ?? 0) >= 3 << 20, "resumed from \(start ?? 0)")
            #expect(folder.contents == ["file.bin"])
        }
    }

    @Test("the resume record is private (0600) and keeps no query values; a re-signed URL still resumes")
    func privateRecord() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 300_000)
        let served = Counter()
        server.route("/file") { request in
            let response = LoopbackServer.Response.ranged(body, for: request, etag: #""v1""#)
            return served.next() == 1 ? response.closingConnection(afterBodyBytes: 100_000) : response
        }
        let api = TestAPI(server)
        let destination = folder.file("file.bin")
        let signed = URLParameters(["signature": "first-secret-signature", "expires": "1700000000"])
        _ = await api.download(route: api.get(endpoint: "/file"), parameters: signed, to: destination).result
        let partial = PartialDownload(besideFile: destination)
        for file in [partial.recordURL, partial.dataURL] {
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file.lastPathComponent): \(String(mode ?? 0, radix: 8))")
        }
        let record = String(decoding: try Data(contentsOf: partial.recordURL), as: UTF8.self)
        #expect(!record.contains("first-secret-signature"))
        #expect(!record.contains("1700000000"))
        #expect(record.contains("/file"))

        let resigned = URLParameters(["signature": "second-secret-signature", "expires": "1800000000"])
        let saved = try await api.download(
            route: api.get(endpoint: "/file"), parameters: resigned, to: destination
        )
        .value
        #expect(try Data(contentsOf: saved) == body)
        #expect(server.requests.last?.value(forHeader: "Range") == "bytes=100000-")
    }

    @Test(
        "a download through a Provider's interceptor is saved, and the interceptor sees the body went to a file"
    )
    func throughInterceptor() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 500_000)
        server.route("/file") { request in .ranged(body, for: request, etag: #""v1""#) }
        let seen = Locked<[Bool]>([])
        let provider = Provider(baseURL: server.baseURL.absoluteString, transport: TestTransport.make())
            .intercept { request, next in
                let response = try await next(request)
                seen.withLock { $0.append(response.bodyWentToFile) }
                return response
            }
        let api = TestAPI(server, transport: provider.makeTransport())
        let destination = folder.file("file.bin")
        let saved = try await api.download(route: api.get(endpoint: "/file"), to: destination).value
        #expect(try Data(contentsOf: saved) == body)
        #expect(seen.withLock { $0 } == [true])
        #expect(folder.contents == ["file.bin"])
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

@Suite("Transfers: one download at a time owns a partial file")
struct PartialFileLeaseTests {
    @Test(
        "a second download to the same file waits until the first has closed it, then resumes from all of it")
    func waitsForTheFile() throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let destination = folder.file("file.bin")
        let url = try #require(URL(string: "http://127.0.0.1:1/file"))
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["ETag": #""v1""#]))
        let first = DownloadPlan(target: .file(destination), overwrite: false, maximumBytes: nil)
        let sent = Locked<[URLRequest]>([])
        first.prepare(URLRequest(url: url)) { request, _ in sent.withLock { $0.append(request) } }
        #expect(try first.begin(response))
        try first.write(Data(repeating: 1, count: 1000))
        // The request failed or was cancelled, but its transport is still writing.
        first.requestEnded()

        let second = DownloadPlan(target: .file(destination), overwrite: false, maximumBytes: nil)
        let waited = Locked<Bool?>(nil)
        second.prepare(URLRequest(url: url)) { request, didWait in
            sent.withLock { $0.append(request) }
            waited.withLock { $0 = didWait }
        }
        #expect(sent.withLock { $0.count } == 1, "the second download must wait for the file")
        try first.write(Data(repeating: 2, count: 24))
        first.abandon()
        #expect(sent.withLock { $0.count } == 2)
        #expect(waited.withLock { $0 } == true)
        #expect(sent.withLock { $0.last?.value(forHTTPHeaderField: "Range") } == "bytes=1024-")
        second.requestEnded()
    }
}
