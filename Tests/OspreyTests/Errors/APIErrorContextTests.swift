import Foundation
import Osprey
import Testing

@Suite("APIError.Context: the body it keeps")
struct APIErrorContextTests {
    @Test("a body over the cap is cut to a copy of its first 64 KiB, so the rest can be freed")
    func cappedCopy() throws {
        let body = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0) })
        let context = APIError.Context(request: nil, data: body)
        let kept = try #require(context.data)
        #expect(kept == body.prefix(APIError.Context.maximumBodyBytes))
        // A slice of `body` would share its 1 MiB buffer.
        let shared = body.withUnsafeBytes { whole in
            kept.withUnsafeBytes { part in
                let start = UInt(bitPattern: whole.baseAddress)
                let end = start + UInt(whole.count)
                return (start..<end).contains(UInt(bitPattern: part.baseAddress))
            }
        }
        #expect(!shared)
    }
}
