import Foundation
import Testing

@testable import Osprey

/// The RFC 9111 arithmetic and parsing under the cache, without a server.
@Suite("Caching: Cache-Control, age and freshness")
struct CacheRulesTests {
    @Test("directives are read case-insensitively, with quoted arguments and across fields")
    func directives() {
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "Public, MAX-AGE=\"120\"")
        headers.add(name: "cache-control", value: "no-cache=\"Set-Cookie, X\"")
        let control = CacheControl(headers)
        #expect(control.isPublic)
        #expect(control.seconds("max-age") == 120)
        #expect(control.noCache)
        #expect(!control.noStore)
        #expect(CacheControl(["Cache-Control": "max-age=abc"]).seconds("max-age") == nil)
        #expect(CacheControl(["Cache-Control": "max-age=99999999999999"]).seconds("max-age") == 2_147_483_648)
        #expect(CacheControl(["Pragma": "no-cache"]).noCache)
        #expect(!CacheControl(["Pragma": "no-cache", "Cache-Control": "max-age=5"]).noCache)
    }

    private func entry(_ fields: [[String]], requestTime: Double = 1000, responseTime: Double = 1002)
        -> CachedResponse
    {
        CachedResponse(
            head: .init(
                key: "GET http://example.test/", url: "http://example.test/", statusCode: 200,
                httpVersion: nil,
                fields: fields, varied: [:], requestTime: requestTime, responseTime: responseTime,
                bodyLength: 0,
                bodyChecksum: CachedResponse.checksum(Data())),
            body: Data())
    }

    @Test("age counts the Age header, the response's delay and the time since (RFC 9111 §4.2.3)")
    func age() {
        let stored = entry([["Age", "30"]])
        // 30 (Age) + 2 (the response's delay), then 10 s resident.
        #expect(stored.age(at: Date(timeIntervalSince1970: 1012)) == 42)
        // A Date far behind the arrival: the apparent age wins.
        let lagging = entry(
            [["Date", "Thu, 01 Jan 1970 00:10:00 GMT"]], requestTime: 1000, responseTime: 1000)
        #expect(lagging.age(at: Date(timeIntervalSince1970: 1000)) == 400)
    }

    @Test("freshness: max-age over Expires; an invalid Expires is already stale; heuristics only on request")
    func freshness() {
        let date = "Thu, 01 Jan 1970 00:16:40 GMT"  // 1000
        #expect(
            entry([["Cache-Control", "max-age=60"], ["Expires", "garbage"]]).freshnessLifetime(
                heuristic: false) == 60)
        #expect(
            entry([["Date", date], ["Expires", "Thu, 01 Jan 1970 00:18:20 GMT"]]).freshnessLifetime(
                heuristic: false) == 100)
        #expect(entry([["Expires", "0"]]).freshnessLifetime(heuristic: false) == 0)
        let modified = entry([["Date", date], ["Last-Modified", "Thu, 01 Jan 1970 00:00:00 GMT"]])
        #expect(modified.freshnessLifetime(heuristic: false) == 0)
        #expect(modified.freshnessLifetime(heuristic: true) == 100)
    }

    @Test("a 304 refreshes the stored headers but not those that describe the body")
    func refresh() {
        let stored = entry([["ETag", "\"1\""], ["Content-Length", "10"], ["X-Old", "a"]])
        let refreshed = stored.refreshed(
            by: ["X-Old": "b", "Content-Length": "0", "Cache-Control": "max-age=5"],
            requestTime: Date(timeIntervalSince1970: 2000), responseTime: Date(timeIntervalSince1970: 2001))
        let headers = refreshed.headers
        #expect(headers["X-Old"] == "b")
        #expect(headers["Content-Length"] == "10")
        #expect(headers["Cache-Control"] == "max-age=5")
        #expect(headers["ETag"] == "\"1\"")
        #expect(refreshed.head.responseTime == 2001)
    }

    private let keying = CacheCredentials(key: Array(repeating: 7, count: 32))

    @Test("a 304 that sets a cookie leaves no Set-Cookie in the stored entry")
    func refreshWithoutCookies() {
        let stored = entry([["ETag", "\"1\""]])
        let refreshed = stored.refreshed(
            by: ["Set-Cookie": "session=bob", "Cache-Control": "max-age=5"],
            requestTime: Date(timeIntervalSince1970: 2000), responseTime: Date(timeIntervalSince1970: 2001))
        #expect(refreshed.headers["Set-Cookie"] == nil)
        #expect(refreshed.headers["Cache-Control"] == "max-age=5")
    }

    @Test("an entry serves the credentials it was stored for alone, and keeps none in clear")
    func credentials() throws {
        let url = try #require(URL(string: "http://alice:pw-secret@example.test/me"))
        var alice = URLRequest(url: url)
        alice.setValue("Bearer token-alice", forHTTPHeaderField: "Authorization")
        alice.setValue("session=alice", forHTTPHeaderField: "Cookie")
        let digest = try #require(keying.digest(of: alice, declared: []))
        var bob = alice
        bob.setValue("session=bob", forHTTPHeaderField: "Cookie")
        var other = alice
        other.url = URL(string: "http://alice:other@example.test/me")
        #expect(keying.digest(of: bob, declared: []) != digest)
        #expect(keying.digest(of: other, declared: []) != digest)
        #expect(keying.digest(of: URLRequest(url: url), declared: []) != nil)
        #expect(
            keying.digest(
                of: URLRequest(url: try #require(URL(string: "http://example.test/me"))), declared: []) == nil
        )
        var declared = URLRequest(url: try #require(URL(string: "http://example.test/me")))
        declared.setValue("k1", forHTTPHeaderField: "X-Account")
        #expect(keying.digest(of: declared, declared: ["x-account"]) != nil)
        #expect(
            CacheCredentials(key: Array(repeating: 8, count: 32)).digest(of: alice, declared: []) != digest)

        var stored = entry([["Vary", "Cookie"]])
        stored.head.credentials = digest
        stored.head.varied = ["cookie": keying.digest("session=alice")]
        #expect(stored.matches(alice, credentials: digest, keying: keying))
        #expect(!stored.matches(bob, credentials: keying.digest(of: bob, declared: []), keying: keying))
        #expect(!stored.matches(alice, credentials: nil, keying: keying))
        let text = String(data: try #require(DiskCacheStorage.encode([stored])), encoding: .isoLatin1) ?? ""
        for secret in ["token-alice", "session=alice", "pw-secret"] { #expect(!text.contains(secret)) }
    }

    @Test("Vary matching: the same values match, whitespace aside; Vary: * never does")
    func vary() throws {
        var request = URLRequest(url: try #require(URL(string: "http://example.test/")))
        request.setValue("gzip,  br", forHTTPHeaderField: "Accept-Encoding")
        var stored = entry([["Vary", "Accept-Encoding"]])
        stored.head.varied = ["accept-encoding": "gzip,br"]
        #expect(stored.matches(request, credentials: nil, keying: keying))
        request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        #expect(!stored.matches(request, credentials: nil, keying: keying))
        #expect(!entry([["Vary", "*"]]).matches(request, credentials: nil, keying: keying))
    }
}
