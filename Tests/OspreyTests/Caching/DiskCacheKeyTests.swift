import Foundation
import Testing

@testable import Osprey

/// The key of a disk cache's credential digests: its file, and the folder around it.
@Suite("Caching: a disk cache's key and folder")
struct DiskCacheKeyTests {
    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("osprey-key-\(UUID())")
    }

    @Test("the key is made once, kept owner-only, and read again by the next cache on the folder")
    func keptAndShared() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try DiskCacheStorage(folder: folder, maximumBytes: 1 << 20)
        let second = try DiskCacheStorage(folder: folder, maximumBytes: 1 << 20)
        #expect(first.credentialKey.count == 32 && first.credentialKey == second.credentialKey)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent("credential-key").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["credential-key"])
    }

    @Test("a damaged or readable-by-others key file is replaced; an open folder is closed to others")
    func replaced() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let file = folder.appendingPathComponent("credential-key")
        try Data(repeating: 1, count: 5).write(to: file)
        let short = try DiskCacheStorage(folder: folder, maximumBytes: 1 << 20)
        #expect(short.credentialKey.count == 32 && short.credentialKey != [UInt8](repeating: 1, count: 32))
        #expect(try Data(contentsOf: file) == Data(short.credentialKey))
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions]
        #expect((folderMode as? NSNumber)?.intValue == 0o700)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let exposed = try DiskCacheStorage(folder: folder, maximumBytes: 1 << 20)
        #expect(exposed.credentialKey != short.credentialKey)
    }
}
