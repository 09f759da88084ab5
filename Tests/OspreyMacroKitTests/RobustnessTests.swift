import OspreyMacroKit
import Testing

/// Whatever the compiler hands over, expansion ends, never crashes, and answers with source or
/// diagnostics whose ranges lie inside the declaration.
@Suite("MacroExpander: malformed declarations")
struct RobustnessTests {
    static let seed = """
        /// A protocol.
        @API @Authorization(.basic(username: "u", password: "p")) @JSON(encoder: .iso8601)
        public protocol Users: Sendable {
            @GET("/users/:id/todos?x=1") func todos<T: Decodable>(id postID: Path<Int>, q: [String: Int]?) async throws -> (T, Response) where T: Sendable
            #if os(Linux)
            @Multipart @POST(#"/a)b"#) func up(file: Part, cb: @escaping (Result<Void, Error>) -> Void)
            #endif
            @HTTP("/x", method: "PURGE") func purge(`in`: Header<String>) -> Promise<Data?> // done
        }
        """

    @Test("every prefix of a declaration", arguments: [seed])
    func prefixes(source: String) {
        let bytes = Array(source.utf8)
        for length in 0...bytes.count {
            check(String(decoding: bytes[..<length], as: UTF8.self))
        }
    }

    @Test("10,000 random mutations of a declaration (deleted, duplicated and swapped tokens)")
    func mutations() {
        var generator = SplitMix(seed: 0x05B2E7)
        let tokens = Lexer.tokenize(Self.seed).tokens.dropLast().map(\.text)
        for _ in 0..<10_000 {
            var mutated = tokens
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated.remove(at: index)
                case 1:
                    mutated.insert(mutated[Int.random(in: 0..<mutated.count, using: &generator)], at: index)
                default: mutated.swapAt(index, Int.random(in: 0..<mutated.count, using: &generator))
                }
                if mutated.isEmpty { mutated = ["@"] }
            }
            check(mutated.joined(separator: " "))
        }
    }

    @Test("deep nesting is refused with a diagnostic, never a stack overflow")
    func deepNesting() {
        let depth = 20_000
        let nestedType = String(repeating: "(", count: depth) + "Int" + String(repeating: ")", count: depth)
        let nestedArguments = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var nestedString = "x"
        for _ in 0..<200 { nestedString = #""\("# + nestedString + #")""# }
        let sources = [
            "@API protocol P { @GET(\"/\") func f(a: \(nestedType)) async throws }",
            "@API protocol P { @Headers(\(nestedArguments)) @GET(\"/\") func f() async throws }",
            "@API protocol P { @GET(\(nestedString)) func f() async throws }",
            "@API protocol P { @GET(\"/\") func f() async throws -> \(String(repeating: "[", count: depth)) }",
        ]
        for source in sources {
            check(source)
        }
        let deepType = MacroExpander.expand(
            .init(macro: "APIMacro", role: "peer", attribute: "@API", declaration: sources[0]))
        #expect(deepType.diagnostics.contains { $0.message.contains("nested too deeply") })
    }

    private func check(_ source: String) {
        let count = source.utf8.count
        for macro in ["APIMacro", "MockMacro"] {
            let expansion = MacroExpander.expand(
                .init(macro: macro, role: "peer", attribute: "@API", declaration: source))
            #expect(expansion.source != nil || !expansion.diagnostics.isEmpty, "\(source)")
            for diagnostic in expansion.diagnostics {
                #expect(diagnostic.range.lowerBound >= 0 && diagnostic.range.upperBound <= count, "\(source)")
            }
        }
    }
}

/// A small deterministic generator, so a failure can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
