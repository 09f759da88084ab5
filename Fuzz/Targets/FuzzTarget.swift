import Foundation

/// The parsers Osprey runs on bytes a server or a user controls, each wrapped for a fuzzer: any
/// input must be read without a crash, a hang or a sanitizer report, and what comes out must
/// keep the parser's promises (checked with `precondition`, so that a broken promise is a crash
/// the fuzzer reports). `Scripts/fuzz.sh` runs them under libFuzzer; the tests replay their
/// corpora (`Fuzz/Corpus/<name>`) on every run.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// Response head lines and their framing (`ResponseHeadReader`, `Content-Length`).
    case responseHead = "response-head"
    /// `Content-Disposition` and the safe file name made from it.
    case contentDisposition = "content-disposition"
    /// `Content-Range` of a `206`.
    case contentRange = "content-range"
    /// The multipart boundary: no part can end the body early or forge a part.
    case multipart
    /// `Set-Cookie` lines, joined lines split back, cookie dates.
    case setCookie = "set-cookie"
    /// The macro kit's lexer, parser and generators, on any source text.
    case macro
    /// `text/event-stream` bodies and lines, cut anywhere.
    case eventStream = "event-stream"
    /// The HTTP cache's caching headers (age, freshness), its entry files, and its matching of
    /// a request's credentials and varied headers against an entry.
    case cacheEntry = "cache-entry"
    /// A streamed request body's framing: never a byte beyond its declared length.
    case bodyStream = "body-stream"
    /// A server's bytes to a WebSocket client: frames, fragments, control frames, close codes,
    /// UTF-8 and the size limits, cut anywhere.
    case webSocket = "websocket"
    /// A chunked body read by hand (the answer to an upgrade that was not a `101`).
    case chunkedBody = "chunked-body"

    /// Reads one input.
    package func run(_ input: Data) {
        switch self {
        case .responseHead: ResponseHeadTarget.run(input)
        case .contentDisposition: ContentDispositionTarget.run(input)
        case .contentRange: ContentRangeTarget.run(input)
        case .multipart: MultipartTarget.run(input)
        case .setCookie: SetCookieTarget.run(input)
        case .macro: MacroTarget.run(input)
        case .eventStream: EventStreamTarget.run(input)
        case .cacheEntry: CacheEntryTarget.run(input)
        case .bodyStream: BodyStreamTarget.run(input)
        case .webSocket: WebSocketTarget.run(input)
        case .chunkedBody: ChunkedBodyTarget.run(input)
        }
    }
}
