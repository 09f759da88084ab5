import Foundation
import Promises

/// Entries in files in a folder of their own, one file per key with all its variants, so that a
/// new process finds what an earlier one kept. The least recently used files go past the byte
/// limit. A file that cannot be read back exactly as written (cut short, changed, not a cache
/// entry) is deleted and never served.
///
/// A file is `OSPREY-CACHE 1\n`, the number of variants (4 bytes, big-endian), then per variant
/// the length of its head (4 bytes), the head as JSON and the body. Files are written whole to a
/// temporary name and moved into place, readable by the owner only.
package final class DiskCacheStorage: CacheStorage {
    private struct File {
        var size: Int64
        var lastUse: Double
    }

    private struct State {
        var files: [String: File] = [:]
        var total: Int64 = 0
    }

    private let folder: URL
    private let limit: Int64
    let credentialKey: [UInt8]
    /// The file holding ``credentialKey``: not an entry, so never listed or evicted as one.
    private static let keyFileName = "credential-key"
    private let state = Locked(State())
    private static let magic = Data("OSPREY-CACHE 1\n".utf8)
    private static let suffix = ".entry"

    /// Opens (creating it if needed) the folder, and takes stock of the entries already there.
    init(folder: URL, maximumBytes: Int64) throws {
        self.folder = folder
        limit = maximumBytes
        let manager = FileManager.default
        try manager.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A folder that was there already is made the owner's alone too (a cache in a shared
        // temporary folder must not be readable by other users).
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        credentialKey = try Self.credentialKey(in: folder)
        var files: [String: File] = [:]
        for name in try manager.contentsOfDirectory(atPath: folder.path) {
            let url = folder.appendingPathComponent(name)
            guard name.hasSuffix(Self.suffix) else {
                // A write that never finished.
                if name.contains(".partial-") { try? manager.removeItem(at: url) }
                continue
            }
            let attributes = try? manager.attributesOfItem(atPath: url.path)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files[name] = File(size: size, lastUse: modified)
        }
        state.withLock { state in
            state.files = files
            state.total = files.values.reduce(0) { $0 + $1.size }
            evict(&state)
        }
    }

    func entries(for key: String) -> [CachedResponse] {
        let name = Self.fileName(for: key)
        return state.withLock { state in
            guard state.files[name] != nil else { return [] }
            let url = folder.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url), let entries = Self.decode(data) else {
                // Damaged: dropped, never served.
                try? FileManager.default.removeItem(at: url)
                if let file = state.files.removeValue(forKey: name) { state.total -= file.size }
                return []
            }
            state.files[name]?.lastUse = Date().timeIntervalSince1970
            // Another key with the same file name (a hash collision) is not this key's.
            return entries.filter { $0.head.key == key }
        }
    }

    func store(_ entries: [CachedResponse], for key: String) {
        let name = Self.fileName(for: key)
        let url = folder.appendingPathComponent(name)
        let data = entries.isEmpty ? nil : Self.encode(entries)
        state.withLock { state in
            if let file = state.files.removeValue(forKey: name) {
                state.total -= file.size
                try? FileManager.default.removeItem(at: url)
            }
            guard let data, Int64(data.count) <= limit else { return }
            let partial = folder.appendingPathComponent(name + ".partial-\(UUID().uuidString)")
            guard
                FileManager.default.createFile(
                    atPath: partial.path, contents: data, attributes: [.posixPermissions: 0o600])
            else { return }
            do {
                try FileManager.default.moveItem(at: partial, to: url)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                return
            }
            state.files[name] = File(size: Int64(data.count), lastUse: Date().timeIntervalSince1970)
            state.total += Int64(data.count)
            evict(&state)
        }
    }

    func removeAll() {
        state.withLock { state in
            for name in state.files.keys {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
            state.files = [:]
            state.total = 0
        }
    }

    var totalBytes: Int64 { state.withLock { $0.total } }

    /// Deletes the least recently used files until the folder is within its limit.
    private func evict(_ state: inout State) {
        while state.total > limit, let oldest = state.files.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(oldest.key))
            state.files[oldest.key] = nil
            state.total -= oldest.value.size
        }
    }

    /// The folder's key: read, or made by the first process (readable by its owner only, and
    /// put in place whole, so that no process reads half a key). A key file that is not a
    /// regular file of the owner's with 32 bytes is replaced: the entries stored under the old
    /// key are then never found again, which costs requests and leaks nothing.
    private static func credentialKey(in folder: URL) throws -> [UInt8] {
        let url = folder.appendingPathComponent(keyFileName)
        if let key = readKey(at: url) { return key }
        let key = HMACSHA256.makeKey()
        let partial = folder.appendingPathComponent(keyFileName + ".partial-\(UUID().uuidString)")
        let descriptor = partial.withUnsafeFileSystemRepresentation { path in
            open(path!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { try? FileManager.default.removeItem(at: partial) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data(key))
        try handle.close()
        // link(2) puts the whole file in place, and fails if another process was first.
        let linked = partial.withUnsafeFileSystemRepresentation { from in
            url.withUnsafeFileSystemRepresentation { to in link(from!, to!) }
        }
        if linked == 0 { return key }
        if let theirs = readKey(at: url) { return theirs }
        // A damaged key file: replaced.
        try? FileManager.default.removeItem(at: url)
        let replaced = partial.withUnsafeFileSystemRepresentation { from in
            url.withUnsafeFileSystemRepresentation { to in link(from!, to!) }
        }
        return replaced == 0 ? key : (readKey(at: url) ?? key)
    }

    /// The key in `url`, if it is a regular file of this user's, unreadable by others, of 32 bytes
    /// (a link is not followed).
    private static func readKey(at url: URL) -> [UInt8]? {
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            open(path!, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        }
        guard descriptor >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            status.st_uid == getuid(), status.st_mode & 0o077 == 0, status.st_size == 32,
            let data = try? handle.read(upToCount: 32), data.count == 32
        else { return nil }
        return Array(data)
    }

    // MARK: The file format

    /// The file's name: a 64-bit FNV-1a hash of the key, in hex.
    static func fileName(for key: String) -> String {
        let hex = String(FNV1a.hash(key.utf8), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + suffix
    }

    package static func encode(_ entries: [CachedResponse]) -> Data? {
        var data = magic
        append(UInt32(entries.count), to: &data)
        let encoder = JSONEncoder()
        for entry in entries {
            guard let head = try? encoder.encode(entry.head), head.count <= Int(UInt32.max) else {
                return nil
            }
            append(UInt32(head.count), to: &data)
            data.append(head)
            data.append(entry.body)
        }
        return data
    }

    /// The entries a file holds, or nil when it is not exactly a sound entry file.
    package static func decode(_ data: Data) -> [CachedResponse]? {
        var reader = Reader(data: data)
        guard reader.take(magic.count) == magic, let count = reader.number(), count <= 64 else { return nil }
        let decoder = JSONDecoder()
        var entries: [CachedResponse] = []
        for _ in 0..<count {
            guard let length = reader.number(), let headData = reader.take(Int(length)),
                let head = try? decoder.decode(CachedResponse.Head.self, from: headData),
                head.bodyLength >= 0, let body = reader.take(head.bodyLength)
            else { return nil }
            let entry = CachedResponse(head: head, body: body)
            guard entry.isIntact else { return nil }
            entries.append(entry)
        }
        return reader.isAtEnd ? entries : nil
    }

    private static func append(_ number: UInt32, to data: inout Data) {
        withUnsafeBytes(of: number.bigEndian) { data.append(contentsOf: $0) }
    }

    /// Reads a file front to back, never past its end.
    private struct Reader {
        let data: Data
        var offset = 0

        mutating func take(_ count: Int) -> Data? {
            guard count >= 0, count <= data.count - offset else { return nil }
            let start = data.startIndex + offset
            offset += count
            return data.subdata(in: start..<start + count)
        }

        mutating func number() -> UInt32? {
            take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
        }

        var isAtEnd: Bool { offset == data.count }
    }
}
