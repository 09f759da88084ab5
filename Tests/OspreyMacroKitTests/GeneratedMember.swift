/// The lines of the generated member `name` in `source`, from its `func` line to its closing
/// brace, indentation kept; empty when there is none.
func generatedMember(named name: String, in source: String) -> [Substring] {
    let lines = source.split(separator: "\n")
    guard let start = lines.firstIndex(where: { $0.hasPrefix("    func \(name)(") }),
        let end = lines[start...].firstIndex(of: "    }")
    else { return [] }
    return Array(lines[start...end])
}
