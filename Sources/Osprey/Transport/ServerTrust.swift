#if canImport(Security)
    import Foundation
    import Security

    /// Public-key pinning on Apple platforms: the server's certificate must pass the system's
    /// evaluation, and its key must match one of ``TLSOptions/pinnedPublicKeys``.
    enum ServerTrust {
        /// Whether `trust` passes the system's evaluation and its leaf certificate's key has one
        /// of `pins`.
        static func passes(_ trust: SecTrust, pins: [String]) -> Bool {
            guard SecTrustEvaluateWithError(trust, nil), let pin = leafPin(of: trust) else { return false }
            return PublicKeyPin.normalized(pins).contains(pin)
        }

        /// The pin of the server's own certificate (the first of the chain); nil for a key type
        /// pins cannot name (neither RSA nor ECDSA on P-256, P-384 or P-521).
        static func leafPin(of trust: SecTrust) -> String? {
            guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate],
                let leaf = chain.first,
                let key = SecCertificateCopyKey(leaf),
                let attributes = SecKeyCopyAttributes(key) as? [String: Any],
                let type = attributes[kSecAttrKeyType as String] as? String,
                let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?
            else { return nil }
            let kind: PublicKeyPin.KeyKind
            if type == kSecAttrKeyTypeRSA as String {
                kind = .rsa
            } else if type == kSecAttrKeyTypeECSECPrimeRandom as String,
                let bits = attributes[kSecAttrKeySizeInBits as String] as? Int
            {
                kind = .ellipticCurve(bits: bits)
            } else {
                return nil
            }
            return PublicKeyPin.subjectPublicKeyInfo(kind: kind, rawKey: [UInt8](raw))
                .map(PublicKeyPin.pin(ofSubjectPublicKeyInfo:))
        }
    }
#endif
