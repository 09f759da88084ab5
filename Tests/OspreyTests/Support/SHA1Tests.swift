import Foundation
import OspreyTesting
import Testing

@testable import Osprey

@Suite("SHA-1: the digest of the WebSocket handshake")
struct SHA1Tests {
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test("SHA-1 of the FIPS 180-4 examples")
    func examples() {
        #expect(Self.hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Self.hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            Self.hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(
            Self.hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("SHA-1 agrees with Python's hashlib on every length from 0 to 300 bytes (each padding case)")
    func lengths() throws {
        let message = { (count: Int) in (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }
        let (status, output) = try ChildProcess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import hashlib\nfor n in range(301): print(hashlib.sha1(bytes((i * 7 + 3) % 256 for i in range(n))).hexdigest())",
            ])
        try #require(status == 0)
        let expected = output.split(separator: "\n").map(String.init)
        try #require(expected.count == 301)
        for count in 0...300 {
            #expect(Self.hex(SHA1.digest(message(count))) == expected[count], "length \(count)")
        }
    }
}
