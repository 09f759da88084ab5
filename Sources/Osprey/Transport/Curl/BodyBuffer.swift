#if canImport(CCurl)
    import Foundation

    /// A response body held in memory as libcurl hands it over: a plain `Data` while small, a
    /// block from ``BodyBufferPool`` once it is (or is announced to be) large.
    struct BodyBuffer {
        private var small = Data()
        private var block: (pointer: UnsafeMutableRawPointer, size: Int)?
        /// Bytes in the block.
        private var blockCount = 0
        private let pool: BodyBufferPool

        init(pool: BodyBufferPool = .shared) {
            self.pool = pool
        }

        /// The bytes held.
        var count: Int { block == nil ? small.count : blockCount }

        /// Makes room for a body of `capacity` bytes (its announced length).
        mutating func reserve(_ capacity: Int) {
            if capacity >= BodyBufferPool.smallestBlock {
                grow(to: capacity)
            } else if block == nil {
                small.reserveCapacity(capacity)
            }
        }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            if block == nil, small.count + bytes.count < BodyBufferPool.smallestBlock {
                small.append(contentsOf: bytes)
                return
            }
            grow(to: count + bytes.count)
            guard let block else { return }
            (block.pointer + blockCount).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            blockCount += bytes.count
        }

        /// A copy of the bytes, leaving the buffer as it is (for an error's context).
        var snapshot: Data {
            guard let block else { return small }
            return Data(bytes: block.pointer, count: blockCount)
        }

        /// The bytes, without a copy; the buffer is empty afterwards. A block goes back to the
        /// pool when the returned `Data` is released.
        mutating func take() -> Data {
            defer { self = BodyBuffer(pool: pool) }
            guard let block else { return small }
            self.block = nil
            return pool.data(of: block.pointer, size: block.size, count: blockCount)
        }

        /// Empties the buffer, giving any block back to the pool.
        mutating func reset() {
            if let block { pool.give(block.pointer, size: block.size) }
            self = BodyBuffer(pool: pool)
        }

        /// Moves the bytes to a block that holds at least `capacity`.
        private mutating func grow(to capacity: Int) {
            if let block, block.size >= capacity { return }
            let bigger = pool.take(atLeast: capacity)
            if let block {
                bigger.block.copyMemory(from: block.pointer, byteCount: blockCount)
                pool.give(block.pointer, size: block.size)
            } else {
                small.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress {
                        bigger.block.copyMemory(from: base, byteCount: bytes.count)
                    }
                }
                blockCount = small.count
                small = Data()
            }
            block = (bigger.block, bigger.size)
        }
    }
#endif
