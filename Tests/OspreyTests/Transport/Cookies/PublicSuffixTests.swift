import Foundation
import Testing

@testable import Osprey

@Suite("Cookies: no cookie for a public suffix")
struct PublicSuffixTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func url(_ text: String) -> URL { URL(string: text)! }

    @Test(
        "a Domain that is a public suffix is ignored, unless it is the host (then host-only)",
        arguments: [
            // (set from, Set-Cookie, request, sent?)
            ("https://evil.co.uk/", "a=1; Domain=co.uk", "https://bank.co.uk/", false),
            ("https://evil.co.uk/", "a=1; Domain=.co.uk", "https://evil.co.uk/", false),  // ignored entirely
            ("https://evil.github.io/", "a=1; Domain=github.io", "https://victim.github.io/", false),
            ("https://www.example.co.uk/", "a=1; Domain=example.co.uk", "https://shop.example.co.uk/", true),
            ("https://www.example.co.uk/", "a=1; Domain=example.co.uk", "https://example.co.uk/", true),
            ("https://user.github.io/", "a=1; Domain=user.github.io", "https://user.github.io/", true),
            ("https://www.example.com/", "a=1; Domain=com", "https://other.com/", false),
            // The suffix's own host may set one, for itself alone.
            ("https://github.io/", "a=1; Domain=github.io", "https://github.io/", true),
            ("https://github.io/", "a=1; Domain=github.io", "https://user.github.io/", false),
        ] as [(String, String, String, Bool)])
    func publicSuffixes(from: String, line: String, request: String, sent: Bool) {
        let jar = CookieJar(now: { [now] in now })
        jar.store(setCookieLines: [line], from: url(from))
        #expect((jar.headerValue(for: url(request)) == "a=1") == sent)
    }

    @Test("a name with a trailing dot is the same name: com. and co.uk. are suffixes")
    func trailingDot() {
        #expect(PublicSuffix.contains("com.") && PublicSuffix.contains("co.uk."))
        #expect(!PublicSuffix.contains("example.co.uk."))
        let jar = CookieJar(now: { [now] in now })
        jar.store(setCookieLines: ["a=1; Domain=com."], from: url("https://evil.com./"))
        #expect(jar.headerValue(for: url("https://bank.com/")) == nil)
    }

    @Test("a cookie for the public suffix that is its own host is host-only")
    func suffixHostIsHostOnly() throws {
        let cookie = try #require(
            SetCookie.parse("a=1; Domain=github.io", from: url("https://github.io/"), at: now))
        #expect(cookie.isHostOnly && cookie.domain == "github.io")
    }

    @Test("on Linux the list is libpsl's when the system has it: a rule the fallback lacks is known")
    func systemList() {
        #if os(Linux)
            guard
                FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libpsl.so.5")
                    || FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/libpsl.so.5")
            else { return }
            #expect(PublicSuffix.source == .libpsl)
            // Neither in the fallback's set nor of one label: only the full list knows them.
            #expect(
                !PublicSuffix.isFallbackSuffix("pvt.k12.ma.us")
                    && !PublicSuffix.isFallbackSuffix("blogspot.co.uk"))
            #expect(PublicSuffix.contains("pvt.k12.ma.us"))
            #expect(PublicSuffix.contains("blogspot.co.uk"))
            #expect(!PublicSuffix.contains("example.co.uk"))
            #expect(!PublicSuffix.contains("bbc.co.uk"))
        #endif
        #expect(
            PublicSuffix.contains("co.uk") && PublicSuffix.contains("github.io")
                && PublicSuffix.contains("com"))
        #expect(!PublicSuffix.contains("example.com") && !PublicSuffix.contains("user.github.io"))
    }

    @Test("the fallback: single labels and the built-in set, nothing more")
    func fallback() {
        #expect(PublicSuffix.isFallbackSuffix("com") && PublicSuffix.isFallbackSuffix("localhost"))
        #expect(PublicSuffix.isFallbackSuffix("co.uk") && PublicSuffix.isFallbackSuffix("github.io"))
        #expect(
            !PublicSuffix.isFallbackSuffix("example.co.uk") && !PublicSuffix.isFallbackSuffix("pvt.k12.ma.us")
        )
    }
}
