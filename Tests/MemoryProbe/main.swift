// OspreyMemoryProbe: one hostile transfer in a process of its own, so that its peak resident
// memory is not mixed with other tests'. OspreyTests (HostileMemoryTests) runs it.
//
//   OspreyMemoryProbe bomb|flood LIMIT_BYTES   prints one JSON report on stdout
//   OspreyMemoryProbe serve                    the hostile server: prints its port, then serves
//                                              until standard input closes
//   OspreyMemoryProbe cache FOLDER URL         GETs URL through a disk HTTPCache in FOLDER and
//                                              prints where the answer came from and its body
//                                              (DiskCacheTests: a cache found again by a new
//                                              process)
//
// The server runs in a second process, as a real one would: in the measured process its
// unthrottled writer thread would compete for the same two cores and the same allocator, and
// the figures would no longer be the client's alone.
import Foundation
import Osprey
import OspreyTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one run measured.
struct Report: Codable {
    /// `responseTooLarge`, or what happened instead.
    var outcome: String
    var seconds: Double
    /// Resident memory just before the hostile request.
    var baselineBytes: Int
    /// Peak resident memory from then until the request ended.
    var peakBytes: Int
}

final class ProbeAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    init(port: Int, limit: Int) {
        baseURL = "http://127.0.0.1:\(port)"
        var configuration = APIConfiguration()
        configuration.maximumResponseBytes = limit
        // The transport the tests run on (the default, or `OSPREY_TEST_TRANSPORT=urlsession`).
        let transport: (any HTTPTransport)? =
            ProcessInfo.processInfo.environment["OSPREY_TEST_TRANSPORT"] == "urlsession"
            ? URLSessionTransport() : nil
        super.init(responseParser: JSONParser(), transport: transport, configuration: configuration)
        responseQueue = DispatchQueue(label: "probe.response")
    }
}

/// Resident and peak resident memory, in bytes (Linux; zero elsewhere).
func memory() -> (resident: Int, peak: Int) {
    #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    #else
        return (0, 0)
    #endif
}

/// Waits for a promise from this synchronous program.
func wait<Value>(_ promise: Promise<Value>) -> Result<Value, any Error> {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<Value, any Error>?
    promise.onResult(in: .global()) { outcome in
        result = outcome
        done.signal()
    }
    done.wait()  // orders the write above before the read below
    return result!
}

func serve() throws -> Never {
    let server = try LoopbackServer()
    server.route("/small") { _ in .json(#"{"ok": true}"#) }
    server.route("/bomb") { _ in .gzipBomb(inflatedBytes: 1 << 30) }
    server.route("/flood") { _ in .text("").endlessBody() }
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    _ = ReadablePipe(descriptor: STDIN_FILENO).readToEnd()
    server.stop()
    exit(0)
}

func startServer() throws -> (ChildProcess, port: Int) {
    // Its input is a pipe this process holds: closed when this process exits, which stops the server.
    let server = try ChildProcess(
        URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL.path, ["serve"], standardInput: .pipe,
        standardOutput: .pipe)
    let line = server.output?.read(until: "\n") ?? ""
    guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return (server, port)
}

/// A client with nothing of its own: the probe's requests are absolute URLs.
final class PlainAPI: AbstractAPI, @unchecked Sendable {}

/// GETs `url` through a disk cache in `folder`, printing `network|hit|revalidated BODY`.
func fetchThroughCache(folder: String, url: String) throws -> Never {
    let api = PlainAPI(responseParser: JSONParser())
    api.configuration.cache = try HTTPCache(folder: URL(fileURLWithPath: folder))
    switch wait(api.request(route: .method(.get, url)) as Promise<APIResponse<String>>) {
    case .success(let response):
        let source = response.cacheStatus.map { "\($0)" } ?? "network"
        FileHandle.standardOutput.write(Data("\(source) \(response.value)\n".utf8))
        exit(0)
    case .failure(let error):
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "serve" { try serve() }
if arguments.count == 4, arguments[1] == "cache" {
    try fetchThroughCache(folder: arguments[2], url: arguments[3])
}
guard arguments.count == 3, let limit = Int(arguments[2]), ["bomb", "flood"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: OspreyMemoryProbe bomb|flood LIMIT_BYTES | serve\n".utf8))
    exit(2)
}
let (server, port) = try startServer()
let api = ProbeAPI(port: port, limit: limit)

// Warm up (session, threads, first allocations), then measure from here.
_ = wait(api.request(route: api.get(endpoint: "/small")) as Promise<Data>)
#if os(Linux)
    // Writing 5 resets the peak (VmHWM) to the current resident size.
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
#endif
let baseline = memory().resident
let start = DispatchTime.now()
let path = arguments[1] == "bomb" ? "/bomb" : "/flood"
let outcome = wait(api.request(route: api.get(endpoint: "\(raw: path)")) as Promise<Data>)
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
let peak = memory().peak
let description: String =
    switch outcome {
    case .success(let data): "succeeded with \(data.count) bytes"
    case .failure(APIError.responseTooLarge): "responseTooLarge"
    case .failure(let error): "\(error)"
    }
let report = Report(
    outcome: description, seconds: seconds, baselineBytes: baseline, peakBytes: max(peak, baseline))
FileHandle.standardOutput.write(try JSONEncoder().encode(report) + Data("\n".utf8))
server.stop()
