extension LoopbackServer {
    /// One header line as it appeared on the wire: name and value, in their original order and case.
    public struct HeaderField: Sendable, Hashable, CustomStringConvertible {
        /// The header name, with the case the peer used.
        public var name: String
        /// The header value, without the surrounding optional whitespace.
        public var value: String

        /// Creates a header line.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        /// `Name: value`, as on the wire.
        public var description: String { "\(name): \(value)" }
    }
}

extension [LoopbackServer.HeaderField] {
    /// The first value of the header called `name`, compared case-insensitively.
    func firstValue(named name: String) -> String? {
        first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the header called `name`, in order, compared case-insensitively.
    func allValues(named name: String) -> [String] {
        filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}
