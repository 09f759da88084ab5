#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// Large response bodies live in blocks that are reused once released, so that a busy client
    /// does not fault fresh pages in for every body.
    @Suite("Transport: response bodies in reusable blocks")
    struct BodyBufferTests {
        private func bytes(_ count: Int, seed: Int = 0) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }
        }

        @Test("a small body stays ordinary Data; a large one moves to a block as it grows, bytes intact")
        func growth() {
            let pool = BodyBufferPool(retainedLimit: 8 << 20)
            var buffer = BodyBuffer(pool: pool)
            let expected = bytes(700_000)
            var offset = 0
            for size in [10, 100_000, 200_000, 1, 399_989] {
                expected[offset..<offset + size].withUnsafeBytes { buffer.append($0) }
                offset += size
            }
            #expect(buffer.count == 700_000)
            #expect(buffer.snapshot == Data(expected))
            let data = buffer.take()
            #expect(data == Data(expected))
            #expect(buffer.count == 0)
            // 300,010 bytes moved to a 512 KiB block, given back when 700,000 needed 1 MiB (in use).
            #expect(pool.retainedBytes == 512 << 10)
        }

        @Test("a released body's block is reused by the next body of its size")
        func reuse() throws {
            let pool = BodyBufferPool(retainedLimit: 8 << 20)
            var first = BodyBuffer(pool: pool)
            first.reserve(1 << 20)
            bytes(1 << 20, seed: 1).withUnsafeBytes { first.append($0) }
            var data: Data? = first.take()
            let address = data!.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            #expect(pool.retainedBytes == 0)
            data = nil
            #expect(pool.retainedBytes == 1 << 20)
            var second = BodyBuffer(pool: pool)
            second.reserve(1 << 20)
            bytes(1 << 20, seed: 2).withUnsafeBytes { second.append($0) }
            let again = second.take()
            #expect(again.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } == address)
            #expect(again == Data(bytes(1 << 20, seed: 2)))
            #expect(pool.retainedBytes == 0)
        }

        @Test("the pool keeps at most its limit; reset gives the block back")
        func limit() {
            let pool = BodyBufferPool(retainedLimit: 1 << 20)
            var bodies: [Data] = []
            for _ in 0..<3 {
                var buffer = BodyBuffer(pool: pool)
                buffer.reserve(1 << 20)
                bytes(1 << 20).withUnsafeBytes { buffer.append($0) }
                bodies.append(buffer.take())
            }
            bodies = []
            #expect(pool.retainedBytes == 1 << 20)
            var abandoned = BodyBuffer(pool: pool)
            abandoned.reserve(300_000)
            #expect(pool.retainedBytes == 1 << 20)
            abandoned.reset()
            #expect(pool.retainedBytes == 1 << 20)
            #expect(BodyBufferPool.blockSize(for: 1) == 256 << 10)
            #expect(BodyBufferPool.blockSize(for: (1 << 20) + 1) == 2 << 20)
        }

        @Test("CurlTransport delivers large bodies whole, with and without a length, many at once")
        func throughTransport() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let chunk = Data(bytes(1 << 20, seed: 3))
            server.route("/sized") { _ in LoopbackServer.Response(body: chunk) }
            server.route("/chunked") { _ in .streaming { body in body.write(chunk) } }
            let api = TestAPI(server, transport: CurlTransport())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let path = index.isMultiple(of: 2) ? "/sized" : "/chunked"
                        let body: Data = try await api.request(route: api.get(endpoint: path)).value
                        #expect(body == chunk, "\(path)")
                    }
                }
                try await group.waitForAll()
            }
        }
    }
#endif
