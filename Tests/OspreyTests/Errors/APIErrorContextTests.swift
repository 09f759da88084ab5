import Foundation
import Osprey
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

    @Test("a context names the method and the redacted URL, or says the request is unknown")
    func description() throws {
        var request = URLRequest(url: URL(string: "https://user:secret@h.example/chat?token=t0ken")!)
        request.httpMethod = "POST"
        let named = APIError.parsingFailed(
            underlying: CocoaError(.coderReadCorrupt), context: .init(request: request))
        #expect(named.description.hasPrefix("Parsing failed for POST https://"))
        #expect(named.description.contains("h.example/chat"))
        #expect(!named.description.contains("secret") && !named.description.contains("t0ken"))
        let unknown = APIError.parsingFailed(
            underlying: CocoaError(.coderReadCorrupt), context: .init(request: nil))
        #expect(unknown.description.hasPrefix("Parsing failed for an unknown request: "))
    }
}
