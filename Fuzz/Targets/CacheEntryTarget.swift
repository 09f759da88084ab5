import Foundation
import Osprey

/// The HTTP cache's reading of a response's caching headers, and of its own entry files: the
/// input's lines are header fields (`Name: value`); any of them must give a finite, non-negative
/// age and freshness, an entry that survives being written and read back, and a file reader that
/// refuses (never crashes on) the raw input and every cut of a sound file.
enum CacheEntryTarget {
    static func run(_ input: Data) {
        // The raw bytes as an entry file: refused or read, never a crash.
        _ = DiskCacheStorage.decode(input)

        let text = String(decoding: input, as: UTF8.self)
        var fields: [[String]] = []
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append([
                String(line[..<colon]),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces),
            ])
        }
        let body = Data(text.utf8.prefix(64))
        let entry = CachedResponse(
            head: .init(
                key: "GET http://example.test/", url: "http://example.test/", statusCode: 200,
                httpVersion: nil,
                fields: fields, varied: ["accept": text], requestTime: 1_000, responseTime: 1_001,
                bodyLength: body.count, bodyChecksum: CachedResponse.checksum(body)),
            body: body)
        let control = CacheControl(entry.headers)
        for name in ["max-age", "min-fresh", "s-maxage"] {
            if let seconds = control.seconds(name) { precondition(seconds >= 0 && seconds <= 2_147_483_648) }
        }
        for heuristic in [false, true] {
            let lifetime = entry.freshnessLifetime(heuristic: heuristic)
            precondition(lifetime.isFinite && lifetime >= 0, "freshness \(lifetime)")
        }
        let age = entry.age(at: Date(timeIntervalSince1970: 2_000))
        precondition(age.isFinite && age >= 0, "age \(age)")
        // Matching a request made of the same bytes: credentials compared only as digests, and
        // an entry stored without credentials never serves a request that has some.
        let keying = CacheCredentials(key: Array(repeating: 1, count: 32))
        if let url = URL(string: "http://example.test/") {
            var request = URLRequest(url: url)
            for field in fields where field[0].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x3A }) {
                request.addValue(field[1], forHTTPHeaderField: field[0])
            }
            let credentials = keying.digest(of: request, declared: [])
            if let credentials {
                precondition(credentials.hasPrefix("hmac-sha256:") && credentials.utf8.count == 76)
                precondition(!entry.matches(request, credentials: credentials, keying: keying))
            }
            _ = entry.matches(request, credentials: nil, keying: keying)
        }

        guard let file = DiskCacheStorage.encode([entry]) else { return }
        precondition(DiskCacheStorage.decode(file) == [entry], "an entry did not survive its file")
        let cut = Int(input.first ?? 0) * file.count / 256
        precondition(DiskCacheStorage.decode(file.prefix(cut)) == nil, "a cut file was read")
    }
}
