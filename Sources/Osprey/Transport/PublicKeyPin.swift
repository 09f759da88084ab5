import Foundation

/// Public-key pins as ``TLSOptions/pinnedPublicKeys`` holds them: the base64 SHA-256 of a
/// certificate's DER SubjectPublicKeyInfo, the form `openssl` and libcurl's
/// `CURLOPT_PINNEDPUBLICKEY` use.
///
/// libcurl computes the digest itself. Apple's Security framework hands out a key without its
/// SubjectPublicKeyInfo wrapper (`SecKeyCopyExternalRepresentation`: PKCS #1 for RSA, the X9.63
/// point for elliptic curves), so URLSessionTransport rebuilds the wrapper here (RFC 5280
/// §4.1.2.7, RFC 8017 appendix A.1, RFC 5480 §2) before taking the digest.
enum PublicKeyPin {
    /// The kind of a key, as the Security framework describes it.
    enum KeyKind: Equatable {
        /// RSA: the raw key is a DER RSAPublicKey (PKCS #1).
        case rsa
        /// ECDSA on a NIST prime curve of this many bits (256, 384 or 521): the raw key is the
        /// uncompressed point.
        case ellipticCurve(bits: Int)
    }

    /// The pins with surrounding spaces and empty entries dropped.
    static func normalized(_ pins: [String]) -> [String] {
        pins.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The pin of a DER SubjectPublicKeyInfo.
    static func pin(ofSubjectPublicKeyInfo der: [UInt8]) -> String {
        Data(SHA256.digest(der)).base64EncodedString()
    }

    /// The DER SubjectPublicKeyInfo of a raw key; nil for a curve other than P-256, P-384 and P-521.
    static func subjectPublicKeyInfo(kind: KeyKind, rawKey: [UInt8]) -> [UInt8]? {
        let algorithm: [UInt8]
        switch kind {
        case .rsa:
            // rsaEncryption, with the NULL parameters RFC 8017 requires.
            algorithm = DER.sequence(DER.objectIdentifier([1, 2, 840, 113_549, 1, 1, 1]) + [0x05, 0x00])
        case .ellipticCurve(let bits):
            let curves: [Int: [UInt]] = [
                256: [1, 2, 840, 10045, 3, 1, 7],  // secp256r1 (prime256v1)
                384: [1, 3, 132, 0, 34],  // secp384r1
                521: [1, 3, 132, 0, 35],  // secp521r1
            ]
            guard let curve = curves[bits] else { return nil }
            // id-ecPublicKey, with the named curve as its parameters.
            algorithm = DER.sequence(
                DER.objectIdentifier([1, 2, 840, 10045, 2, 1]) + DER.objectIdentifier(curve))
        }
        // The key is a BIT STRING with no unused bits.
        return DER.sequence(algorithm + DER.element(tag: 0x03, [0x00] + rawKey))
    }

    /// Just enough DER (X.690) to write a SubjectPublicKeyInfo.
    private enum DER {
        static func sequence(_ contents: [UInt8]) -> [UInt8] { element(tag: 0x30, contents) }

        static func element(tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
            [tag] + length(contents.count) + contents
        }

        /// Short form below 128; otherwise 0x80 plus the count of big-endian length bytes.
        static func length(_ count: Int) -> [UInt8] {
            guard count >= 0x80 else { return [UInt8(count)] }
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xff), at: 0)
                rest >>= 8
            }
            return [0x80 | UInt8(bytes.count)] + bytes
        }

        /// The first two arcs in one byte (40 × first + second), each later arc in base 128 with
        /// the high bit set on all its bytes but the last.
        static func objectIdentifier(_ arcs: [UInt]) -> [UInt8] {
            var contents = [UInt8(arcs[0] * 40 + arcs[1])]
            for arc in arcs.dropFirst(2) {
                var group = [UInt8(arc & 0x7f)]
                var rest = arc >> 7
                while rest > 0 {
                    group.insert(UInt8(rest & 0x7f) | 0x80, at: 0)
                    rest >>= 7
                }
                contents += group
            }
            return element(tag: 0x06, contents)
        }
    }
}
