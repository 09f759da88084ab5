/// The status code of a WebSocket close (RFC 6455 §7.4): why a side closed the connection.
///
/// Codes 1000–2999 are the protocol's, 3000–3999 registered by libraries and frameworks, and
/// 4000–4999 private to an application. Some codes describe a close but may never be sent in a
/// close frame (``noStatusReceived``, ``abnormalClosure``, ``tlsHandshakeFailed``): Osprey
/// reports them, and refuses them when a server sends them.
///
/// ```swift
/// socket.close(code: .normal, reason: "done")
/// socket.close(code: WebSocketCloseCode(4001), reason: "session replaced")
/// ```
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number sent in the close frame.
    public let rawValue: UInt16

    /// A code with the number `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A code with the number `code`.
    public init(_ code: UInt16) { self.rawValue = code }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = WebSocketCloseCode(1000)
    /// 1001: the endpoint is going away (a server shutting down, a page left).
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a message of a type the endpoint cannot accept (text where binary was expected).
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: the close frame carried no code. Never sent.
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: the connection ended without a close frame. Never sent.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a text message was not UTF-8, or data was not consistent with its type.
    public static let invalidFramePayloadData = WebSocketCloseCode(1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a frame or message was larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client needed an extension the server did not agree to.
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(1011)
    /// 1015: the TLS handshake failed. Never sent.
    public static let tlsHandshakeFailed = WebSocketCloseCode(1015)

    /// Whether the code may appear in a close frame (RFC 6455 §7.4.1 and the IANA registry):
    /// 1000–1003, 1007–1014 and 3000–4999.
    public var maySendInFrame: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The number and, for the codes RFC 6455 names, its name: `1000 (normal)`.
    public var description: String {
        let name: String? =
            switch self {
            case .normal: "normal"
            case .goingAway: "going away"
            case .protocolError: "protocol error"
            case .unsupportedData: "unsupported data"
            case .noStatusReceived: "no status received"
            case .abnormalClosure: "abnormal closure"
            case .invalidFramePayloadData: "invalid frame payload data"
            case .policyViolation: "policy violation"
            case .messageTooBig: "message too big"
            case .mandatoryExtension: "mandatory extension"
            case .internalServerError: "internal server error"
            case .tlsHandshakeFailed: "TLS handshake failed"
            default: nil
            }
        return name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
