#if os(Linux)
    import Testing

    @testable import Osprey

    /// A loop asks libcurl for a large read buffer only while its transfers read large bodies
    /// (see `ReadBufferSizing`), and always for a body that goes to a file or a stream.
    @Suite("Transport: the read buffer follows the bodies a loop reads")
    struct ReadBufferSizingTests {
        @Test("a new loop reads with the large buffer, until that many small bodies in a row")
        func decaysAfterSmallBodies() {
            var sizing = ReadBufferSizing()
            for _ in 0..<ReadBufferSizing.memory {
                #expect(sizing.size(sinks: false) == ReadBufferSizing.large)
                sizing.record(bodyBytes: 40)
            }
            #expect(sizing.size(sinks: false) == nil)
            sizing.record(bodyBytes: ReadBufferSizing.largeBody)
            #expect(sizing.size(sinks: false) == nil, "a body at the limit is not large")
        }

        @Test("one large body brings the large buffer back for the next transfers")
        func largeBodyRestores() {
            var sizing = ReadBufferSizing()
            for _ in 0..<ReadBufferSizing.memory { sizing.record(bodyBytes: 0) }
            #expect(sizing.size(sinks: false) == nil)
            sizing.record(bodyBytes: ReadBufferSizing.largeBody + 1)
            #expect(sizing.size(sinks: false) == ReadBufferSizing.large)
            #expect(sizing.largeLeft == ReadBufferSizing.memory)
        }

        @Test("a body that goes to a file or a stream always gets the large buffer")
        func sinksAlwaysLarge() {
            var sizing = ReadBufferSizing()
            for _ in 0..<ReadBufferSizing.memory * 2 { sizing.record(bodyBytes: 1) }
            #expect(sizing.size(sinks: true) == ReadBufferSizing.large)
            #expect(sizing.size(sinks: false) == nil)
        }
    }
#endif
