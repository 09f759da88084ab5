/// Builds generated source line by line with four-space indentation.
struct SourceWriter {
    private(set) var text = ""
    private var depth = 0

    /// Appends a line (an empty string makes a blank line).
    mutating func line(_ line: String) {
        text += line.isEmpty ? "\n" : String(repeating: "    ", count: depth) + line + "\n"
    }

    /// Appends `opening`, the lines `body` writes one level deeper, then `closing`.
    mutating func block(_ opening: String, closing: String = "}", _ body: (inout SourceWriter) -> Void) {
        line(opening)
        depth += 1
        body(&self)
        depth -= 1
        line(closing)
    }

    /// Writes `members`, with each `#if` clause around the members it holds.
    mutating func members(_ members: [Member], _ write: (inout SourceWriter, FunctionRequirement) -> Void) {
        for member in members {
            switch member {
            case .function(let function):
                write(&self, function)
            case .conditional(let clauses):
                for clause in clauses {
                    text += clause.directive + "\n"
                    self.members(clause.members, write)
                }
                text += "#endif\n"
            }
        }
    }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// The access modifier generated declarations get from their protocol.
struct AccessLevels {
    /// For the generated type: the protocol's own.
    var type: String
    /// For members that satisfy requirements: public or package only when the protocol is.
    var member: String

    init(_ protocolLevel: String?) {
        type = protocolLevel.map { $0 + " " } ?? ""
        member = protocolLevel.flatMap { ["public", "package"].contains($0) ? $0 + " " : nil } ?? ""
    }
}
