#if canImport(CCurl)
    /// How large a read buffer a loop's next transfer asks libcurl for, from the bodies its
    /// recent transfers read.
    ///
    /// libcurl 7.88 allocates the buffer for each transfer and frees it when the transfer ends.
    /// A large one reads large bodies in fewer, larger reads (1 MiB bodies 16 at a time took
    /// 0.53-0.56 of raw URLSession's time with libcurl's 16 KiB, 0.31-0.38 with 256 KiB), but
    /// freeing 256 KiB after every small response made glibc trim the loop thread's heap
    /// (`madvise`, which flushes the TLB on every core, then page faults to grow it again):
    /// small responses 16 at a time took 54-55 µs and 76-81 µs of CPU each with it, 50-54 µs
    /// and 75-78 µs without. So a loop keeps asking for the large buffer only while it reads
    /// large bodies, and always for a body that goes to a file or a stream.
    ///
    /// A loop starts with the large buffer: one whose first transfers read into small buffers
    /// read 1 MiB bodies 10-15 % slower afterwards, with the large buffer (glibc's heap then
    /// grows and shrinks around each of them).
    struct ReadBufferSizing {
        /// The buffer asked for while bodies are large.
        static let large = 256 << 10
        /// A body longer than this (libcurl's own buffer is 16 KiB) counts as large.
        static let largeBody: Int64 = 64 << 10
        /// How many transfers after a large body still get the large buffer.
        static let memory = 64

        /// Transfers left that get the large buffer.
        private(set) var largeLeft = Self.memory

        /// The size to ask for (nil: libcurl's default) for a transfer whose body goes to a
        /// file or a stream (`sinks`) or to memory.
        func size(sinks: Bool) -> Int? {
            sinks || largeLeft > 0 ? Self.large : nil
        }

        /// Records how many body bytes a transfer that ended read.
        mutating func record(bodyBytes: Int64) {
            if bodyBytes > Self.largeBody {
                largeLeft = Self.memory
            } else if largeLeft > 0 {
                largeLeft -= 1
            }
        }
    }
#endif
