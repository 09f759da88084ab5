import Foundation
import Osprey
import OspreyTesting

/// What a loopback WebSocket session saw, kept when it ends (on the server's thread) and read
/// by the test afterwards: the messages it read back, the client's pongs and close, and how the
/// session ended.
final class PeerRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var _echoes: [WebSocketMessage] = []
    private var _pongs: [[UInt8]] = []
    private var _close: (code: WebSocketCloseCode?, reason: String)?
    private var _failure: (any Error)?
    private var _cut = false
    var echoes: [WebSocketMessage] { lock.withLock { _echoes } }
    var pongs: [[UInt8]] { lock.withLock { _pongs } }
    var close: (code: WebSocketCloseCode?, reason: String)? { lock.withLock { _close } }
    var failure: (any Error)? { lock.withLock { _failure } }
    /// Whether the client closed the connection while the server still wrote to it.
    var cut: Bool { lock.withLock { _cut } }

    /// Keeps what `peer` received, with what the session itself gathered.
    func finish(
        _ peer: LoopbackServer.WebSocketPeer, echoes: [WebSocketMessage] = [], failure: (any Error)? = nil,
        cut: Bool = false
    ) {
        lock.withLock {
            _echoes = echoes
            _pongs = peer.pongsReceived
            _close = peer.closeReceived
            _failure = failure
            _cut = cut
        }
    }
}
