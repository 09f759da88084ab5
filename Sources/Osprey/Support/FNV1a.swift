/// The 64-bit FNV-1a hash: stable across runs and platforms (unlike `Hasher`), for names of files
/// that must be found again and for a cheap check that stored bytes are the ones written.
enum FNV1a {
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
