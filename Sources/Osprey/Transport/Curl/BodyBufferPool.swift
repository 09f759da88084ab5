#if canImport(CCurl)
    import Foundation

    /// Large blocks of memory for response bodies held in memory, kept for reuse once the `Data`
    /// made from them is released.
    ///
    /// Why: a megabyte-sized body in freshly allocated memory costs a page fault (and the
    /// kernel's zeroing) for every 4 KiB written. With 16 1 MiB responses in flight, glibc's
    /// allocator handed such memory back to the system and took it again for each response:
    /// 120 page faults per response, twice the CPU of the same requests one at a time. Blocks
    /// from this pool were written before, so they are already mapped.
    ///
    /// Blocks come in powers of two from ``smallestBlock``; at most ``retainedLimit`` bytes are
    /// kept while unused (the rest is freed), so a process that once held many large bodies keeps
    /// at most that much afterwards.
    final class BodyBufferPool: Sendable {
        /// The process's pool.
        static let shared = BodyBufferPool(retainedLimit: 32 << 20)

        /// Bodies smaller than this use ordinary memory (the allocator reuses small blocks well).
        static let smallestBlock = 256 << 10

        /// The most bytes kept while unused.
        let retainedLimit: Int

        private struct State {
            /// Unused blocks by size, as addresses.
            var free: [Int: [UInt]] = [:]
            var retainedBytes = 0
        }

        private let state = Locked(State())

        init(retainedLimit: Int) {
            self.retainedLimit = retainedLimit
        }

        /// How many bytes unused blocks hold now.
        var retainedBytes: Int { state.withLock { $0.retainedBytes } }

        /// The size of block that holds `count` bytes.
        static func blockSize(for count: Int) -> Int {
            var size = smallestBlock
            while size < count { size <<= 1 }
            return size
        }

        /// A block of at least `count` bytes: an unused one if there is one, else a new one.
        func take(atLeast count: Int) -> (block: UnsafeMutableRawPointer, size: Int) {
            let size = Self.blockSize(for: count)
            let reused = state.withLock { state -> UInt? in
                guard let address = state.free[size]?.popLast() else { return nil }
                state.retainedBytes -= size
                return address
            }
            if let reused, let block = UnsafeMutableRawPointer(bitPattern: reused) { return (block, size) }
            return (UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16), size)
        }

        /// Takes back a block from ``take(atLeast:)``: kept if there is room, else freed.
        func give(_ block: UnsafeMutableRawPointer, size: Int) {
            let kept = state.withLock { state -> Bool in
                guard state.retainedBytes + size <= retainedLimit else { return false }
                state.free[size, default: []].append(UInt(bitPattern: block))
                state.retainedBytes += size
                return true
            }
            if !kept { block.deallocate() }
        }

        /// A `Data` of the first `count` bytes of `block`, which comes back to the pool when the
        /// last copy of the `Data` is released.
        func data(of block: UnsafeMutableRawPointer, size: Int, count: Int) -> Data {
            Data(
                bytesNoCopy: block, count: count,
                deallocator: .custom { [self] block, _ in give(block, size: size) })
        }
    }
#endif
