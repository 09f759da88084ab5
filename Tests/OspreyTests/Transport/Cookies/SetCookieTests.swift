import Foundation
import Testing

@testable import Osprey

@Suite("Cookies: what a Set-Cookie line may set")
struct SetCookieTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "a __Secure- or __Host- name (any case) is kept only with the attributes its prefix requires",
        arguments: [
            // (response from, Set-Cookie, kept?)
            ("https://example.com/", "__Secure-id=1; Secure", true),
            ("https://example.com/", "__Secure-id=1", false),  // no Secure
            ("http://example.com/", "__Secure-id=1; Secure", false),  // not from https
            ("https://www.example.com/", "__Secure-id=1; Secure; Domain=example.com; Path=/a", true),
            ("https://example.com/", "__secure-id=1", false),  // case does not matter
            ("https://example.com/", "__SECURE-id=1", false),
            ("https://example.com/a/b", "__Host-id=1; Secure; Path=/", true),
            ("https://example.com/", "__Host-id=1; Secure", false),  // no Path attribute
            ("https://example.com/", "__Host-id=1; Path=/", false),  // no Secure
            ("http://example.com/", "__Host-id=1; Secure; Path=/", false),  // not from https
            ("https://example.com/", "__Host-id=1; Secure; Path=/a", false),  // not Path=/
            ("https://example.com/", "__Host-id=1; Secure; Path=/; Domain=example.com", false),
            ("https://www.example.com/", "__Host-id=1; Secure; Path=/; Domain=example.com", false),
            ("https://example.com/", "__host-id=1; Secure; Domain=example.com; Path=/", false),
            ("https://example.com/", "__HoSt-id=1; Path=/", false),
            ("https://example.com/", "__hOST-id=1; Secure; Path=/", true),
            ("https://example.com/", "_Host-id=1", true),  // not the prefix
            ("https://example.com/", "__Host_id=1", true),
            ("https://example.com/", "x__Secure-id=1", true),
        ] as [(String, String, Bool)])
    func prefixes(from: String, line: String, kept: Bool) {
        #expect((SetCookie.parse(line, from: URL(string: from)!, at: now) != nil) == kept)
    }

    @Test("a jar keeps a __Host- cookie for its host only, and a bare __Host- one from http is never sent")
    func prefixesInTheJar() {
        let jar = CookieJar(now: { [now] in now })
        jar.store(
            setCookieLines: ["__Host-id=good; Secure; Path=/"], from: URL(string: "https://example.com/")!)
        // A sibling subdomain cannot plant or overwrite it with a domain cookie.
        jar.store(
            setCookieLines: ["__Host-id=evil; Secure; Path=/; Domain=example.com"],
            from: URL(string: "https://evil.example.com/")!)
        jar.store(setCookieLines: ["__Secure-s=evil"], from: URL(string: "http://example.com/")!)
        #expect(jar.headerValue(for: URL(string: "https://example.com/")!) == "__Host-id=good")
        #expect(jar.headerValue(for: URL(string: "https://www.example.com/")!) == nil)
    }
}
