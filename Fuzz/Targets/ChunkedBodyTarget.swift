import Foundation
import Osprey

/// A chunked body (the refusal of an upgrade, which Osprey reads itself) cut at two places the
/// input picks: the data, the bytes taken and the verdict must not depend on the cuts, and no
/// more data comes out than went in.
enum ChunkedBodyTarget {
    static func run(_ input: Data) {
        guard input.count >= 2 else { return }
        let body = Array(input.dropFirst(2))
        let first = Int(input[input.startIndex]) * body.count / 256
        let second = first + (body.count - first) * Int(input[input.startIndex + 1]) / 256
        let whole = decode([body[...]])
        let cut = decode([body[..<first], body[first..<second], body[second...]])
        precondition(whole.data == cut.data, "the body depends on the cuts")
        precondition(
            whole.failed == cut.failed && whole.complete == cut.complete, "the verdict depends on the cuts")
        // Where a body ends is known only when it ended (a failure counts no bytes of its piece).
        if whole.complete { precondition(whole.used == cut.used, "the body's end depends on the cuts") }
        precondition(whole.data.count <= body.count && whole.used <= body.count)
    }

    private static func decode(_ pieces: [ArraySlice<UInt8>]) -> (
        data: [UInt8], used: Int, failed: Bool, complete: Bool
    ) {
        var decoder = ChunkedBodyDecoder()
        var data: [UInt8] = []
        var used = 0
        for piece in pieces where !decoder.isComplete {
            do {
                used += try piece.withUnsafeBytes { bytes in
                    try decoder.take(bytes) { data.append(contentsOf: $0) }
                }
            } catch {
                return (data, used, true, false)
            }
        }
        return (data, used, false, decoder.isComplete)
    }
}
