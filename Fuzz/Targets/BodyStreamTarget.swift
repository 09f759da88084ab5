import Dispatch
import Foundation
import Osprey

/// A streamed request body's framing, as libcurl reads it: a declared length, pieces of sizes
/// the input picks, a read-ahead buffer and reads of another size. No read may hand over a byte
/// beyond the declared length; a sequence of exactly that length is read whole, and any other
/// fails with the length it produced.
enum BodyStreamTarget {
    static func run(_ input: Data) {
        guard input.count >= 4 else { return }
        let bytes = Array(input)
        let declared = Int64(bytes[0])
        let pieceSize = Int(bytes[1] % 32) + 1
        let bufferSize = Int(bytes[2] % 64) + 1
        let readSize = Int(bytes[3] % 16) + 1
        let body = Array(bytes.dropFirst(4))
        let pieces = stride(from: 0, to: body.count, by: pieceSize).map {
            Data(body[$0..<min($0 + pieceSize, body.count)])
        }
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            for piece in pieces { continuation.yield(piece) }
            continuation.finish()
        }
        let ready = DispatchSemaphore(value: 0)
        let reader = BodyStreamReader(
            pieces: stream, length: declared, bufferSize: bufferSize, wake: { ready.signal() })
        defer { reader.cancel() }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: readSize)
        var failure: (any Error)?
        reading: while true {
            do {
                let read = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                switch read {
                case .bytes(let count): received += buffer[..<count]
                case .end: break reading
                case .wait:
                    // The sequence is read by a task on the cooperative pool, which a loaded test
                    // run (ThreadSanitizer beside other suites) may keep busy for tens of seconds:
                    // only a wait of ten minutes counts as a lost wake-up.
                    precondition(ready.wait(timeout: .now() + 600) == .success, "the reader never woke")
                }
            } catch {
                failure = error
                break reading
            }
            precondition(received.count <= declared, "a byte beyond the declared length was read")
        }
        precondition(received == Array(body.prefix(received.count)), "the bytes read are not the body's")
        if body.count == declared {
            precondition(failure == nil && received.count == body.count, "an exact body was not read whole")
        } else {
            let mismatch = failure as? BodyStreamLengthMismatch
            precondition(
                mismatch?.declared == declared, "a body of another length did not fail: \(failure as Any)")
            if body.count < declared {
                precondition(mismatch?.produced == Int64(body.count) && received.count == body.count)
            } else {
                precondition(mismatch!.produced > declared && mismatch!.produced <= Int64(body.count))
            }
        }
    }
}
