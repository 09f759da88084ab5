import Foundation
import Testing

@testable import Osprey

@Suite("Support: LastValue keeps the value last computed for a key")
struct LastValueTests {
    final class Calls: @unchecked Sendable {
        var keys: [String] = []
    }

    @Test("a repeated key is not computed again; a new key is, and replaces the one kept")
    func keepsTheLastKey() {
        let last = LastValue<String, Int>()
        let calls = Calls()
        let compute: (String) -> Int = { key in
            calls.keys.append(key)
            return key.count
        }
        #expect(last.value(for: "abc", compute) == 3)
        #expect(last.value(for: "abc", compute) == 3)
        #expect(last.value(for: "abcde", compute) == 5)
        #expect(last.value(for: "abc", compute) == 3)
        #expect(calls.keys == ["abc", "abcde", "abc"])
    }

    @Test("a computation that throws keeps nothing: the key is computed again, and the kept value stays")
    func errorsAreNotKept() throws {
        struct Invalid: Error {}
        let last = LastValue<String, Int>()
        let calls = Calls()
        let compute: (String) throws -> Int = { key in
            calls.keys.append(key)
            if key.isEmpty { throw Invalid() }
            return key.count
        }
        #expect(try last.value(for: "ok", compute) == 2)
        #expect(throws: Invalid.self) { try last.value(for: "", compute) }
        #expect(throws: Invalid.self) { try last.value(for: "", compute) }
        #expect(try last.value(for: "ok", compute) == 2)
        #expect(calls.keys == ["ok", "", ""])
    }
}
