import Foundation
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A clock a test moves by hand.
final class TestClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

@Suite("Cookies: the jar's RFC 6265 rules")
struct CookieJarTests {
    private let clock = TestClock()
    private var jar: CookieJar { CookieJar(now: { [clock] in clock.now }) }

    private func url(_ text: String) -> URL { URL(string: text)! }

    @Test(
        "which requests a cookie goes to",
        arguments: [
            // (set from, Set-Cookie, request, sent?)
            ("http://example.com/", "a=1", "http://example.com/x", true),
            ("http://example.com/", "a=1", "http://www.example.com/", false),  // host-only
            ("http://example.com/", "a=1; Domain=example.com", "http://www.example.com/", true),
            ("http://www.example.com/", "a=1; Domain=.example.com", "http://example.com/", true),
            // Not its domain:
            ("http://www.example.com/", "a=1; Domain=other.com", "http://other.com/", false),
            ("http://www.example.com/", "a=1; Domain=com", "http://other.com/", false),  // a top-level name
            ("http://example.com/", "a=1; Domain=ple.com", "http://ple.com/", false),
            ("http://127.0.0.1:8080/", "a=1", "http://127.0.0.1:9090/", true),  // ports share cookies
            ("http://127.0.0.1/", "a=1", "http://localhost/", false),
            ("http://127.0.0.1/", "a=1; Domain=0.0.1", "http://9.0.0.1/", false),
            ("http://example.com/a/b", "a=1", "http://example.com/a/c", true),  // default path /a
            ("http://example.com/a/b", "a=1", "http://example.com/b", false),
            ("http://example.com/", "a=1; Path=/docs", "http://example.com/docs/x", true),
            ("http://example.com/", "a=1; Path=/docs", "http://example.com/docsx", false),
            ("http://example.com/", "a=1; Path=/docs/", "http://example.com/docs/", true),
            ("https://example.com/", "a=1; Secure", "https://example.com/", true),
            ("https://example.com/", "a=1; Secure", "http://example.com/", false),  // not over http
            ("http://example.com/", "a=1; Secure", "https://example.com/", false),  // http cannot set it
            ("http://example.com/", "a", "http://example.com/", false),  // no `=`
            ("http://example.com/", "=1", "http://example.com/", false),  // no name
            ("http://example.com/", "a=1\r", "http://example.com/", false),  // a control character
            ("http://example.com/", "a=1; Max-Age=0", "http://example.com/", false),
            (
                "http://example.com/", "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "http://example.com/",
                false
            ),
            (
                "http://example.com/", "a=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
                "http://example.com/", true
            ),
        ] as [(String, String, String, Bool)])
    func sentTo(from: String, setCookie: String, request: String, sent: Bool) {
        let jar = jar
        jar.store(setCookieLines: [setCookie], from: url(from))
        #expect(
            (jar.headerValue(for: url(request)) == "a=1") == sent,
            "\(jar.headerValue(for: url(request)) ?? "nil")")
    }

    @Test("Max-Age=0 and a past Expires remove a stored cookie; a new value replaces the old")
    func removal() {
        let jar = jar
        let site = url("http://example.com/")
        jar.store(setCookieLines: ["a=1", "b=2"], from: site)
        #expect(jar.headerValue(for: site) == "a=1; b=2")
        jar.store(setCookieLines: ["a=; Max-Age=0"], from: site)
        #expect(jar.headerValue(for: site) == "b=2")
        jar.store(setCookieLines: ["b=3"], from: site)
        #expect(jar.headerValue(for: site) == "b=3")
        jar.store(setCookieLines: ["b=3; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: site)
        #expect(jar.headerValue(for: site) == nil)
    }

    @Test("a cookie expires with time: Max-Age counts from when it was set")
    func expiry() {
        let jar = jar
        let site = url("http://example.com/")
        jar.store(setCookieLines: ["a=1; Max-Age=10", "b=2"], from: site)
        clock.advance(by: 9)
        #expect(jar.headerValue(for: site) == "a=1; b=2")
        clock.advance(by: 2)
        #expect(jar.headerValue(for: site) == "b=2")
    }

    @Test("longer paths go first, then older cookies")
    func order() {
        let jar = jar
        jar.store(setCookieLines: ["short=1; Path=/", "long=2; Path=/a/b"], from: url("http://example.com/"))
        clock.advance(by: 1)
        jar.store(setCookieLines: ["later=3; Path=/"], from: url("http://example.com/"))
        #expect(jar.headerValue(for: url("http://example.com/a/b/c")) == "long=2; short=1; later=3")
    }

    @Test("plain http cannot overwrite a secure cookie")
    func secureLeftAlone() {
        let jar = jar
        jar.store(setCookieLines: ["s=good; Secure"], from: url("https://example.com/"))
        jar.store(setCookieLines: ["s=evil"], from: url("http://example.com/"))
        #expect(jar.headerValue(for: url("https://example.com/")) == "s=good")
        #expect(jar.headerValue(for: url("http://example.com/")) == nil)
    }

    @Test("at most 50 cookies per domain: the oldest go first")
    func limits() {
        let jar = jar
        for index in 0..<60 {
            jar.store(setCookieLines: ["c\(index)=\(index)"], from: url("http://example.com/"))
            clock.advance(by: 1)
        }
        let sent = jar.headerValue(for: url("http://example.com/")) ?? ""
        #expect(sent.split(separator: ";").count == 50)
        #expect(!sent.contains("c9=9") && sent.contains("c10=10") && sent.contains("c59=59"))
    }

    @Test("14,000 Set-Cookie lines of one response keep at most 50 per domain, the newest")
    func manyLinesInOneResponse() {
        let jar = jar
        let lines = (0..<14_000).map { index in
            index.isMultiple(of: 2) ? "h\(index)=\(index)" : "d\(index)=\(index); Domain=example.com"
        }
        jar.store(setCookieLines: lines, from: url("http://www.example.com/"))
        let kept = jar.allCookies
        #expect(kept.count == 100)
        #expect(kept.filter { $0.domain == "www.example.com" }.count == 50)
        #expect(kept.filter { $0.domain == ".example.com" }.count == 50)
        #expect(kept.contains { $0.name == "h13998" } && !kept.contains { $0.name == "h13898" })
        #expect(kept.contains { $0.name == "d13999" } && !kept.contains { $0.name == "d13899" })
    }

    @Test("at most 3000 cookies in all, enforced while a response's lines are stored: the oldest go first")
    func totalLimit() {
        let jar = jar
        for host in 0..<59 {
            jar.store(
                setCookieLines: (0..<50).map { "c\($0)=1" }, from: url("http://h\(host).example.com/"))
            clock.advance(by: 1)
        }
        #expect(jar.allCookies.count == 2950)
        // One response from a host with three parent domains sets 4 × 14,000 cookies.
        let lines = (0..<14_000).flatMap { index in
            ["a\(index)=1", "b\(index)=1; Domain=c.d.example.com", "c\(index)=1; Domain=d.example.com"]
        }
        jar.store(setCookieLines: lines, from: url("http://b.c.d.example.com/"))
        let kept = jar.allCookies
        #expect(kept.count == 3000)
        #expect(Dictionary(grouping: kept, by: \.domain).values.allSatisfy { $0.count <= 50 })
        // The 150 new ones pushed out the 100 oldest: the first two hosts'.
        #expect(!kept.contains { $0.domain == "h0.example.com" || $0.domain == "h1.example.com" })
        #expect(kept.filter { $0.domain == "h2.example.com" }.count == 50)
        #expect(kept.filter { $0.domain == "b.c.d.example.com" }.count == 50)
    }

    @Test("storing 50,000 Set-Cookie lines at once finishes and keeps 50 (a smoke test of linear work)")
    func fiftyThousandLines() {
        let jar = jar
        jar.store(setCookieLines: (0..<50_000).map { "c\($0)=\($0)" }, from: url("http://example.com/"))
        #expect(jar.allCookies.count == 50)
        #expect(jar.headerValue(for: url("http://example.com/"))?.hasPrefix("c49950=49950;") == true)
    }

    @Test("a jar over an HTTPCookieStorage keeps the same limits, and trims what was there beyond them")
    func storageLimits() {
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "osprey-\(UUID())")
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
        let jar = CookieJar(storage: storage)
        jar.store(setCookieLines: (0..<400).map { "c\($0)=1" }, from: url("http://example.com/"))
        #expect(storage.cookies?.count == 50)
        #expect(storage.cookies?.contains { $0.name == "c399" } == true)
        // Other code filled the storage past the limit: the next store brings it back under.
        for index in 0..<400 {
            storage.setCookie(
                HTTPCookie(properties: [.name: "o\(index)", .value: "1", .domain: "other.com", .path: "/"])!)
        }
        jar.store(setCookieLines: ["x=1"], from: url("http://other.com/"))
        #expect(storage.cookies?.filter { $0.domain == "other.com" }.count == 50)
        #expect(storage.cookies?.contains { $0.name == "x" } == true)
        #expect(storage.cookies?.filter { $0.domain == "example.com" }.count == 50)
        jar.removeAll()
    }

    @Test("a joined Set-Cookie value of 50,000 commas is split in one pass (a smoke test)")
    func manyCommas() {
        #expect(SetCookie.splitJoined("a=" + String(repeating: "x,", count: 50_000)).count == 1)
        let joined = (0..<50_000).map { "c\($0)=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT" }
        #expect(SetCookie.splitJoined(joined.joined(separator: ", ")).count == 50_000)
    }

    @Test(
        "Set-Cookie lines that HTTPURLResponse joined with commas are split back, Expires dates intact",
        arguments: [
            ("a=1, b=2", ["a=1", "b=2"]),
            (
                "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/, b=2",
                ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/", "b=2"]
            ),
            (
                "a=1; Expires=Wednesday, 21-Oct-26 07:28:00 GMT, b=2; HttpOnly",
                ["a=1; Expires=Wednesday, 21-Oct-26 07:28:00 GMT", "b=2; HttpOnly"]
            ),
            ("a=x,y", ["a=x,y"]),
        ] as [(String, [String])])
    func splitting(joined: String, lines: [String]) {
        #expect(SetCookie.splitJoined(joined) == lines)
    }

    @Test("a mark that joins the next scalar into one character does not hide a ; or a , (fuzzing found it)")
    func separatorsInsideCharacters() throws {
        let from = url("https://www.example.com/a/b")
        let now = clock.now
        // U+0603 joins the `;` after it into one character: read by characters, the name was
        // "d\u{0603};", which a Cookie header would have sent back as a second cookie.
        #expect(SetCookie.parse("d\u{0603};=/a", from: from, at: now) == nil)
        let cookie = try #require(SetCookie.parse("x=1\u{0603};Path=/p", from: from, at: now))
        #expect(cookie.value == "1\u{0603}" && cookie.path == "/p")
        #expect(!cookie.value.unicodeScalars.contains(";"))
        #expect(SetCookie.splitJoined("a=1\u{0603}, b=2") == ["a=1\u{0603}", "b=2"])
        #expect(CacheControl(["Cache-Control": "max-age=60\u{0603},no-store"]).noStore)
    }

    @Test("a character canonically equal to ; (U+037E) in a name or value drops the cookie (fuzzed)")
    func semicolonLookalike() throws {
        let from = url("https://www.example.com/a/b")
        let now = clock.now
        // Normalized (NFC or NFD) by a server or proxy, U+037E becomes `;`: "a=1\u{037E}b=2" would
        // come back as two cookies.
        #expect(SetCookie.parse("a=1\u{037E}b=2", from: from, at: now) == nil)
        #expect(SetCookie.parse("a\u{037E}b=2; Path=/", from: from, at: now) == nil)
        #expect("\u{037E}".precomposedStringWithCanonicalMapping == ";")
        // The line the fuzzer found: invalid UTF-8 around the same two bytes (CD BE).
        let bytes: [UInt8] = [0x62, 0x3D, 0x2F, 0x90, 0x9A, 0x8C, 0xDF, 0xCD, 0xBE, 0xCE, 0xDF, 0x4F]
        #expect(SetCookie.parse(String(decoding: bytes, as: UTF8.self), from: from, at: now) == nil)
        // A full-width semicolon is not canonically `;` (only under NFKC): it stays a value.
        let wide = try #require(SetCookie.parse("a=1\u{FF1B}b=2", from: from, at: now))
        #expect(wide.value == "1\u{FF1B}b=2")
    }

    @Test(
        "cookie dates, read leniently (RFC 6265 §5.1.1)",
        arguments: [
            ("Wed, 21 Oct 2026 07:28:00 GMT", 1_792_567_680.0),
            ("Wednesday, 21-Oct-26 07:28:00 GMT", 1_792_567_680.0),
            ("Wed Oct 21 07:28:00 2026", 1_792_567_680.0),
            ("21 Oct 1999 00:00:00", 940_464_000.0),
        ] as [(String, Double)])
    func dates(text: String, seconds: Double) {
        #expect(CookieDate.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(
        "invalid cookie dates are ignored",
        arguments: ["", "Wed, 31 Feb 2026 07:28:00 GMT", "21 Oct 2026", "25:00:00 1 Jan 2026"])
    func invalidDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test("a jar over an HTTPCookieStorage stores there and sends what is there, by the same rules")
    func storageBacked() {
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "osprey-\(UUID())")
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
        let jar = CookieJar(storage: storage)
        jar.store(
            setCookieLines: ["a=1; Path=/", "d=2; Domain=example.com"], from: url("http://www.example.com/x"))
        #expect(Set((storage.cookies ?? []).map(\.name)) == ["a", "d"])
        // (The storage keeps no creation times: the order of equal paths is the storage's.)
        let sent = jar.headerValue(for: url("http://www.example.com/"))
        #expect(sent == "a=1; d=2" || sent == "d=2; a=1", "\(sent ?? "nil")")
        #expect(jar.headerValue(for: url("http://example.com/")) == "d=2")
        jar.store(setCookieLines: ["a=; Max-Age=0"], from: url("http://www.example.com/x"))
        #expect((storage.cookies ?? []).map(\.name) == ["d"])
        jar.removeAll()
        #expect(storage.cookies?.isEmpty ?? true)
    }
}
