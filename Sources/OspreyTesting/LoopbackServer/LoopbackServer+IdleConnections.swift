import Osprey

extension LoopbackServer {
    /// How long Osprey's libcurl transports keep an idle connection for reuse once a loopback
    /// server has been made in the process: an hour instead of libcurl's 118 s.
    ///
    /// The server never closes a kept-alive connection, and tests count the connections it
    /// accepted. On a loaded machine (ThreadSanitizer, with every suite on two cores) two
    /// requests of one test have come minutes apart, and libcurl had closed the first one's
    /// connection by then. A transport made with an age of its own keeps it.
    static let clientIdleConnectionAge = 3_600

    static func keepClientsIdleConnections() {
        CurlTransport.idleConnectionAge.withLock { $0 = max($0, clientIdleConnectionAge) }
    }
}
