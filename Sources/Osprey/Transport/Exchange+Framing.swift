import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Responses whose head breaks the framing rules (see ``FramingVerdict``).
extension Exchange {
    func reject(_ verdict: FramingVerdict) {
        switch verdict {
        case .accept:
            break
        case .invalid(let reason):
            fail { .transport(underlying: ResponseFraming.error(reason: reason), context: $0) }
        case .tooLarge:
            fail { .responseTooLarge(limit: original.tooLargeLimit, context: $0) }
        }
    }
}
