/// A problem found in a declaration, placed by UTF-8 offsets in the declaration's source, with
/// optional fix-its. The plugin turns the offsets into file positions.
public struct MacroDiagnostic: Equatable, Sendable {
    /// How serious it is.
    public enum Severity: String, Sendable {
        case error, warning, note
    }

    /// A replacement of one range of the source.
    public struct Change: Equatable, Sendable {
        /// The bytes replaced (an empty range inserts).
        public var range: Range<Int>
        /// What replaces them.
        public var newText: String

        /// A replacement.
        public init(range: Range<Int>, newText: String) {
            self.range = range
            self.newText = newText
        }
    }

    /// A suggested edit, shown by the compiler as a note with its changes.
    public struct FixIt: Equatable, Sendable {
        /// What the edit does, such as "remove the second Body".
        public var message: String
        /// The edit.
        public var changes: [Change]

        /// A fix-it.
        public init(_ message: String, changes: [Change]) {
            self.message = message
            self.changes = changes
        }
    }

    /// A note at another place.
    public struct Note: Equatable, Sendable {
        /// The note.
        public var message: String
        /// Where it points.
        public var range: Range<Int>

        /// A note.
        public init(_ message: String, at range: Range<Int>) {
            self.message = message
            self.range = range
        }
    }

    /// The message.
    public var message: String
    /// The severity.
    public var severity: Severity
    /// The bytes it is about; the diagnostic is shown at their start.
    public var range: Range<Int>
    /// Suggested edits.
    public var fixIts: [FixIt]
    /// Notes at other places.
    public var notes: [Note]

    /// A diagnostic (an error unless said otherwise).
    public init(
        _ message: String, at range: Range<Int>, severity: Severity = .error, fixIts: [FixIt] = [],
        notes: [Note] = []
    ) {
        self.message = message
        self.severity = severity
        self.range = range
        self.fixIts = fixIts
        self.notes = notes
    }
}
