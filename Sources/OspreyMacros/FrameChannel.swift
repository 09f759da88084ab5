import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One direction of the plugin pipe: frames of an 8-byte little-endian length and a payload.
struct FrameChannel {
    /// Frames larger than this are refused rather than allocated (the compiler sends source
    /// files, far smaller).
    static let maximumFrameBytes: UInt64 = 256 * 1024 * 1024

    let descriptor: Int32

    /// A channel on a private copy of `descriptor`.
    static func duplicate(_ descriptor: Int32) -> FrameChannel {
        FrameChannel(descriptor: dup(descriptor))
    }

    /// The next frame's payload, or nil once the input is closed, cut short or malformed.
    func readFrame() -> Data? {
        guard let header = readExactly(8) else { return nil }
        var length: UInt64 = 0
        for (index, byte) in header.enumerated() { length |= UInt64(byte) << (8 * UInt64(index)) }
        guard length <= Self.maximumFrameBytes else { return nil }
        return readExactly(Int(length))
    }

    /// Writes one frame; false when the pipe is gone.
    func writeFrame(_ payload: Data) -> Bool {
        var frame = Data(count: 8)
        let length = UInt64(payload.count)
        for index in 0..<8 { frame[index] = UInt8(truncatingIfNeeded: length >> (8 * UInt64(index))) }
        frame.append(payload)
        return frame.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return false }
                written += result
            }
            return true
        }
    }

    private func readExactly(_ count: Int) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var filled = 0
            while filled < count {
                let result = read(descriptor, buffer.baseAddress! + filled, count - filled)
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return false }
                filled += result
            }
            return true
        }
        return complete ? data : nil
    }
}
