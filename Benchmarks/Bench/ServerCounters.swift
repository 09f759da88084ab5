import Foundation
import OspreyTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections the server has accepted so far: the loopback server's own count, or
/// nginx's `stub_status` (`/nginx_status`, which Scripts/bench-nginx.sh enables). A block that
/// opens a connection after its warm-up shows that the client closed and reopened one.
struct ServerCounters {
    /// The connections accepted so far, not counting the ones this reading opened itself.
    let accepted: () -> Int?

    /// The loopback server's count.
    init(_ server: LoopbackServer) {
        accepted = { server.acceptedConnectionCount }
    }

    /// nginx's count at `base`, read over a connection of its own that it closes; nil when the
    /// server has no `/nginx_status`.
    init?(nginx base: URL) {
        guard let port = base.port.map(UInt16.init) else { return nil }
        var readings = 0
        let read: () -> Int? = {
            guard let connection = try? RawConnection(port: port) else { return nil }
            defer { connection.close() }
            try? connection.send("GET /nginx_status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            guard let response = try? connection.readResponse(), response.status == 200 else { return nil }
            // "Active connections: 1 \nserver accepts handled requests\n 12 12 40 \n…"
            let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n")
            guard lines.count >= 3, let accepts = lines[2].split(separator: " ").first.flatMap({ Int($0) })
            else { return nil }
            readings += 1
            // Each reading so far opened one connection, this one included.
            return accepts - readings
        }
        guard read() != nil else { return nil }
        accepted = read
    }
}

/// The CPU time this process has used, user and system, in seconds.
enum ProcessCPU {
    static func seconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_SELF, &usage)
        #else
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// The blocks of a measured side: each one's CPU time and the connections the server accepted
/// while it ran. The first block is the warm-up.
final class MeasuredBlocks {
    private(set) var all: [(cpu: Double, opened: Int?)] = []
    private let counters: ServerCounters?

    init(counters: ServerCounters?) {
        self.counters = counters
    }

    /// Runs `body` as one block and notes what it cost.
    func run(_ body: () -> Void) {
        let accepted = counters?.accepted()
        let cpu = ProcessCPU.seconds()
        body()
        let spent = ProcessCPU.seconds() - cpu
        all.append((spent, accepted.flatMap { before in counters?.accepted().map { $0 - before } }))
    }

    /// The median CPU seconds per operation of the blocks after the warm-up.
    func cpuPerOperation(_ operations: Int) -> Double {
        let after = all.dropFirst()
        return after.map(\.cpu).sorted()[after.count / 2] / Double(operations)
    }

    /// The connections each block after the warm-up opened (none when nothing counts them).
    var openedAfterWarmUp: [Int] { all.dropFirst().compactMap(\.opened) }
}
