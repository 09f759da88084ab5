import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's resident memory.
enum ResidentMemory {
    /// The process's peak resident set size. On Linux, the `VmHWM` of `/proc/self/status`: the
    /// high-water mark of this process's own memory. `getrusage`'s `ru_maxrss` would do on a
    /// fresh process, but Linux carries it over from the parent into a spawned child, so a child
    /// of a benchmark that had grown reported the parent's peak. Elsewhere, `ru_maxrss` (bytes
    /// on Darwin).
    static func peakBytes() -> Int {
        #if canImport(Darwin)
            var usage = rusage()
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss)
        #else
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first
                    .flatMap({ Int($0) })
            {
                return kilobytes * 1024
            }
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Int(usage.ru_maxrss) * 1024
        #endif
    }

    /// The process's resident set size now (`VmRSS` on Linux; the peak elsewhere).
    static func currentBytes() -> Int {
        #if canImport(Darwin)
            return peakBytes()
        #else
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first
                    .flatMap({ Int($0) })
            else { return peakBytes() }
            return kilobytes * 1024
        #endif
    }
}
