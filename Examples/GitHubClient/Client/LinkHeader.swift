/// The links of an HTTP `Link` header (RFC 8288 §3), which GitHub uses for pagination:
///
/// ```swift
/// let header = LinkHeader(#"<https://api.github.com/user/1/repos?page=2>; rel="next", <https://api.github.com/user/1/repos?page=5>; rel="last""#)
/// header.target(forRelation: "next")  // "https://api.github.com/user/1/repos?page=2"
/// ```
///
/// Reading is lenient, as a client's should be: a link that cannot be read is skipped and the
/// next one is read, so a malformed header yields fewer links, never an error. Targets are kept
/// as written; resolve relative ones against the request's URL.
public struct LinkHeader: Sendable, Equatable {
    /// One link: a target URI and the relations it has to the response.
    public struct Link: Sendable, Equatable {
        /// The URI between `<` and `>`, as written.
        public var target: String
        /// The `rel` parameter's relation types, lower-cased (`rel="next last"` has two).
        public var relations: [String]

        /// A link.
        public init(target: String, relations: [String]) {
            self.target = target
            self.relations = relations
        }
    }

    /// The links, in the order of the header.
    public var links: [Link]

    /// Reads a header's value. Several `Link` lines joined with commas (as URLSession joins
    /// repeated headers) read as one.
    /// - Parameter value: The header's value.
    public init(_ value: String) {
        var scanner = Scanner(value)
        var links: [Link] = []
        while !scanner.isAtEnd {
            if let link = scanner.readLink() { links.append(link) }
            scanner.skipPastComma()
        }
        self.links = links
    }

    /// The target of the first link with `relation` (compared case-insensitively), if any.
    /// - Parameter relation: A relation type such as `next`, `prev`, `first` or `last`.
    /// - Returns: The target URI, as written.
    public func target(forRelation relation: String) -> String? {
        links.first { $0.relations.contains(relation.lowercased()) }?.target
    }
}

extension LinkHeader {
    /// Reads `<target>; name=value; name="quoted value", …` one link at a time.
    private struct Scanner {
        private let characters: [Character]
        private var index = 0

        init(_ text: String) {
            characters = Array(text)
        }

        var isAtEnd: Bool { index >= characters.count }

        private var current: Character? { isAtEnd ? nil : characters[index] }

        /// One link, or nil (having read at most up to the next top-level comma) if it is malformed.
        mutating func readLink() -> Link? {
            skipWhitespace()
            guard current == "<" else { return nil }
            index += 1
            // A URI never contains `>` (RFC 3986), but it may contain commas and semicolons.
            guard let close = characters[index...].firstIndex(of: ">") else {
                index = characters.count
                return nil
            }
            let target = String(characters[index..<close])
            index = close + 1
            var relations: [String]?
            while true {
                skipWhitespace()
                guard current == ";" else { break }
                index += 1
                let (name, value) = readParameter()
                // RFC 8288 §3.3: only the first `rel` counts.
                if name == "rel", relations == nil, let value {
                    relations = value.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
                }
            }
            skipWhitespace()
            guard isAtEnd || current == "," else { return nil }
            return Link(target: target, relations: relations ?? [])
        }

        /// Moves past the next comma that separates links (outside quotes and angle brackets).
        mutating func skipPastComma() {
            while let character = current {
                switch character {
                case ",":
                    index += 1
                    return
                case "\"":
                    _ = readQuoted()
                case "<":
                    index = characters[index...].firstIndex(of: ">").map { $0 + 1 } ?? characters.count
                default:
                    index += 1
                }
            }
        }

        /// `name`, `name=token` or `name="quoted"`; the name lower-cased.
        private mutating func readParameter() -> (name: String, value: String?) {
            skipWhitespace()
            let name = readToken().lowercased()
            skipWhitespace()
            guard current == "=" else { return (name, nil) }
            index += 1
            skipWhitespace()
            return (name, current == "\"" ? readQuoted() : readToken())
        }

        /// Characters up to whitespace or a delimiter of the header's grammar.
        private mutating func readToken() -> String {
            let start = index
            while let character = current, !character.isWhitespace, !";,=\"".contains(character) {
                index += 1
            }
            return String(characters[start..<index])
        }

        /// A quoted string (RFC 9110 §5.6.4) from its opening quote, with `\` escapes removed.
        private mutating func readQuoted() -> String {
            index += 1
            var text = ""
            while let character = current {
                index += 1
                switch character {
                case "\"":
                    return text
                case "\\":
                    if let escaped = current {
                        text.append(escaped)
                        index += 1
                    }
                default:
                    text.append(character)
                }
            }
            return text
        }

        private mutating func skipWhitespace() {
            while let character = current, character.isWhitespace { index += 1 }
        }
    }
}
