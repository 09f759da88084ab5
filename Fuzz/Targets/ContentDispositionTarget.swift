import Foundation
import Osprey

/// A `Content-Disposition` value, and the file name a download into a folder would use.
enum ContentDispositionTarget {
    static func run(_ input: Data) {
        let header = String(decoding: input, as: UTF8.self)
        let suggested = ContentDisposition.filename(in: header)
        let name = ContentDisposition.safeFilename(suggested ?? header, fallback: "download")
        // Whatever the server says, the name stays inside the folder.
        precondition(!name.isEmpty, "an empty name")
        precondition(name != "." && name != "..", "a name that leaves the folder: \(name)")
        precondition(
            !name.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0 == "\0" }),
            "a separator or NUL in \(name.debugDescription)")
        precondition(name.utf8.count <= 255, "a name longer than a file system allows")
    }
}
