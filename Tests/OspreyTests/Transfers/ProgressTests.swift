import Foundation
import OspreyTesting
import Testing

@testable import Osprey

@Suite("Transfers: progress")
struct ProgressTests {
    /// Checks what every sequence of reports of one direction and attempt must satisfy.
    private func checkShape(_ reports: [TransferProgress], total: Int64?, elapsed: TimeInterval) {
        #expect(!reports.isEmpty)
        for (earlier, later) in zip(reports, reports.dropFirst()) {
            #expect(earlier.completedBytes <= later.completedBytes, "not monotonic: \(earlier) then \(later)")
        }
        // About 60 a second, plus the first and the last.
        #expect(Double(reports.count) <= elapsed * 62 + 3, "\(reports.count) reports in \(elapsed) s")
        if let total {
            #expect(reports.last?.completedBytes == total)
            #expect(reports.last?.expectedBytes == total)
            #expect(reports.last?.fractionCompleted == 1)
        }
    }

    @Test(
        "a 16 MiB download: monotonic, coalesced, complete; the last report comes before the promise settles")
    func download() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 16 * 1024 * 1024)
        // Dripped over about half a second, so that coalescing has something to do.
        server.route("/big") { _ in
            LoopbackServer.Response(body: body).dripping(chunkSize: 256 * 1024, every: 0.008)
        }
        let api = TestAPI(server)
        let log = ProgressLog()
        let settledAfterLast = Locked<Bool?>(nil)
        let started = Date()
        let data: Data = try await api.request(route: api.get(endpoint: "/big"))
            .onProgress { log.append($0) }
            .onSuccess { _ in settledAfterLast.withLock { $0 = log.all.last?.isComplete } }
            .value
        let elapsed = Date().timeIntervalSince(started)
        #expect(data == body)
        let reports = log.all
        #expect(reports.allSatisfy { $0.direction == .download && $0.attempt == 1 })
        checkShape(reports, total: Int64(body.count), elapsed: elapsed)
        #expect(reports.count > 3, "expected several reports, got \(reports)")
        #expect(settledAfterLast.withLock { $0 } == true)
    }

    @Test("unknown totals (chunked, gzip) report nil expected bytes and still end with every byte")
    func unknownTotals() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 1024 * 1024)
        // Each answer waits until the test has attached its handler: on a loaded machine the
        // request could otherwise end first, and a handler attached to a settled promise gets no
        // report (by design).
        let attached = DispatchSemaphore(value: 0)
        server.route("/chunked") { _ in
            _ = attached.wait(timeout: .now() + 30)
            return LoopbackServer.Response(body: body).chunked()
        }
        server.route("/gzip") { _ in
            _ = attached.wait(timeout: .now() + 30)
            return LoopbackServer.Response(body: body).gzipped()
        }
        let api = TestAPI(server)
        for path in ["/chunked", "/gzip"] {
            let log = ProgressLog()
            let promise: Promise<Data> = api.request(route: api.get(endpoint: path)).onProgress {
                log.append($0)
            }
            attached.signal()
            let data = try await promise.value
            #expect(data == body)
            // `await` resumes as the promise settles; reports run on the response queue, queued before.
            await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
            let reports = log.all
            #expect(!reports.isEmpty)
            #expect(reports.allSatisfy { $0.expectedBytes == nil && $0.fractionCompleted == nil }, "\(path)")
            #expect(reports.last?.completedBytes == Int64(body.count), "\(path): \(reports)")
        }
    }

    @Test("uploads report progress: a file body and a multipart file part, 16 MiB each")
    func uploads() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let file = folder.file("upload.bin")
        try patternedData(count: 16 * 1024 * 1024).write(to: file)
        let server = try LoopbackServer(
            configuration: .init(discardsBodies: true, readRateLimit: 32 * 1024 * 1024))
        defer { server.stop() }
        server.route("PUT", "/raw") { _ in LoopbackServer.Response(status: 204) }
        server.route("POST", "/form") { _ in LoopbackServer.Response(status: 204) }
        let api = TestAPI(server)

        let rawLog = ProgressLog()
        let started = Date()
        try await
            (api.request(route: api.put(endpoint: "/raw"), parameters: FileParameters(fileURL: file))
            as Promise<Void>).onProgress { rawLog.append($0) }.value
        // The reports queued on the response queue have run once a block queued after them has.
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        let uploads = rawLog.all.filter { $0.direction == .upload }
        checkShape(uploads, total: 16 * 1024 * 1024, elapsed: Date().timeIntervalSince(started))

        let formLog = ProgressLog()
        let formStarted = Date()
        let multipart = MultipartParameters(parts: [Part(name: "file", fileURL: file)])
        try await (api.request(route: api.post(endpoint: "/form"), parameters: multipart) as Promise<Void>)
            .onProgress { formLog.append($0) }.value
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        let formUploads = formLog.all.filter { $0.direction == .upload }
        let total = try #require(formUploads.last?.expectedBytes)
        #expect(total > 16 * 1024 * 1024)
        checkShape(formUploads, total: total, elapsed: Date().timeIntervalSince(formStarted))
    }

    @Test("reports stop once the promise is cancelled, and the connection closes")
    func stopsOnCancel() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 4 * 1024 * 1024)
        // Held after 512 KiB until the client goes away.
        server.route("/slow") { _ in
            LoopbackServer.Response(body: body).pausingBody(afterBytes: 512 * 1024, for: 3600)
        }
        let api = TestAPI(server)
        let log = ProgressLog()
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/slow"))
        promise.onProgress { log.append($0) }
        await log.waitFor(completedBytes: 256 * 1024)
        promise.cancel()
        #expect(await promise.result.isCancellation)
        #expect(await server.waitUntilNoOpenConnections())
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        let count = log.all.count
        #expect(log.all.last.map { $0.completedBytes <= 512 * 1024 } == true)
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        #expect(log.all.count == count)
    }

    @Test("a channel sends nothing after the request failed or was cancelled, not even what was queued")
    func channelAfterClose() async throws {
        let queue = DispatchQueue(label: "progress.test")
        let channel = ProgressChannel(defaultQueue: queue)
        let log = ProgressLog()
        channel.add(queue: nil) { log.append($0) }
        // Hold the queue so that the first report is queued, not yet delivered, when the channel closes.
        let holding = DispatchSemaphore(value: 0)
        queue.async { holding.wait() }
        channel.report(.download, completed: 10, expected: 100)
        channel.close()
        channel.report(.download, completed: 20, expected: 100)
        holding.signal()
        await withCheckedContinuation { done in queue.async { done.resume() } }
        #expect(log.all.isEmpty)
    }

    @Test(
        "a held report flushed just as the transport sends a newer one never shows progress going backwards")
    func overtakenFlush() async throws {
        let queue = DispatchQueue(label: "progress.test")
        let channel = ProgressChannel(defaultQueue: queue)
        let log = ProgressLog()
        channel.add(queue: nil) { log.append($0) }
        // The monitor runs on the flush queue's thread when the held report goes out: reporting the
        // end from there recreates the interleaving (held report taken, newer one sent, held one
        // queued last) without timing.
        let reentered = Locked(false)
        channel.setMonitor { progress in
            guard progress.completedBytes == 50 else { return }
            let first = reentered.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            guard first else { return }
            channel.report(.download, completed: 100, expected: 100)
        }
        channel.report(.download, completed: 10, expected: 100)
        channel.report(.download, completed: 50, expected: 100)  // too soon: held, then flushed
        await log.waitFor(completedBytes: 100)
        await withCheckedContinuation { done in queue.async { done.resume() } }
        let bytes = log.all.map(\.completedBytes)
        #expect(bytes == [10, 100])
        #expect(reentered.withLock { $0 })
    }

    @Test("a flush that comes late sends what it holds a full interval after the last report, never sooner")
    func lateFlush() async throws {
        let clock = ManualClock()
        let queue = DispatchQueue(label: "progress.test")
        let channel = ProgressChannel(defaultQueue: queue, clock: clock.progressClock)
        let log = ProgressLog()
        channel.add(queue: nil) { log.append($0) }
        let delivered = { () async -> [Int64] in
            await withCheckedContinuation { done in queue.async { done.resume() } }
            return log.all.map(\.completedBytes)
        }
        let millisecond: UInt64 = 1_000_000
        clock.set(1_000 * millisecond)
        channel.report(.download, completed: 10, expected: 100)  // sent
        clock.set(1_001 * millisecond)
        channel.report(.download, completed: 20, expected: 100)  // held; a flush is due at 1.016 s
        clock.set(1_020 * millisecond)
        channel.report(.download, completed: 30, expected: 100)  // the interval passed: sent directly
        clock.set(1_021 * millisecond)
        channel.report(.download, completed: 40, expected: 100)  // held
        clock.set(1_022 * millisecond)
        clock.runDue()  // the first flush, late: only 2 ms after 30 went out
        #expect(await delivered() == [10, 30])
        clock.set(1_036 * millisecond)
        clock.runDue()
        #expect(await delivered() == [10, 30, 40])
        #expect(clock.pending == 0)
    }

    @Test("a report only gets past a handler's order when it is newer: more bytes, or a later attempt")
    func order() {
        var order = ProgressOrder()
        let report = { (bytes: Int64, attempt: Int) in
            TransferProgress(
                direction: .download, completedBytes: bytes, expectedBytes: 100, attempt: attempt)
        }
        let reports = [
            report(10, 1), report(100, 1), report(50, 1), report(100, 1), report(0, 2), report(100, 1),
        ]
        let admitted = reports.map { order.admits($0) }
        #expect(admitted == [true, true, false, false, true, false])
        // Directions are ordered apart.
        let upload = order.admits(TransferProgress(direction: .upload, completedBytes: 5, expectedBytes: nil))
        #expect(upload)
    }

    @Test("a retry starts its reports again from zero, marked with its attempt; monitors hear them too")
    func retry() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 512 * 1024)
        let attempts = Counter()
        server.route("/flaky") { _ in
            let attempt = attempts.next()
            // The first answer is a busy server's, with a body of its own.
            return attempt == 1
                ? LoopbackServer.Response(status: 503, body: body.prefix(256 * 1024))
                : LoopbackServer.Response(body: body)
        }
        let api = TestAPI(server)
        api.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 2, baseDelay: 0.01)
        let events = Locked<[APIEvent]>([])
        api.configuration.monitors = [ClosureMonitor { event in events.withLock { $0.append(event) } }]
        let log = ProgressLog()
        let data: Data = try await api.request(route: api.get(endpoint: "/flaky")).onProgress {
            log.append($0)
        }.value
        #expect(data == body)
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        let reports = log.all
        let second = reports.filter { $0.attempt == 2 }
        #expect(!second.isEmpty)
        #expect(second.last?.completedBytes == Int64(body.count))
        #expect(
            reports.firstIndex { $0.attempt == 2 }.map { index in
                reports[index...].allSatisfy { $0.attempt == 2 }
            } == true)
        let monitored = events.withLock { $0 }.compactMap { event -> TransferProgress? in
            if case .progress(let progress) = event.kind { return progress }
            return nil
        }
        #expect(monitored.contains { $0.attempt == 1 } && monitored.contains { $0.attempt == 2 })
    }

    @Test("a main-actor handler gets the reports on the main actor")
    @MainActor
    func mainActor() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 512 * 1024)
        server.route("/file") { _ in LoopbackServer.Response(body: body) }
        let api = TestAPI(server)
        final class Screen {
            var fraction = 0.0
        }
        let screen = Screen()
        // The request queue is held until the handler is added: a fast transport could otherwise
        // finish the request before this (main) thread gets to add it.
        let gate = DispatchSemaphore(value: 0)
        api.requestQueueForTesting.async(flags: .barrier) { gate.wait() }
        let request: Promise<Data> = api.request(route: api.get(endpoint: "/file"))
        let reported = request.onProgress(in: .main) { @MainActor progress in
            screen.fraction = progress.fractionCompleted ?? 0
        }
        gate.signal()
        let data = try await reported.value
        #expect(data == body)
        // The last report was queued on the main queue before the promise settled.
        await withCheckedContinuation { done in DispatchQueue.main.async { done.resume() } }
        #expect(screen.fraction == 1)
    }

    @Test("a handler added late gets the latest report; promises that are not an API's report nothing")
    func lateHandlerAndOtherPromises() async throws {
        let (plain, resolver) = Promise<Int>.pending()
        let nothing = ProgressLog()
        plain.onProgress { nothing.append($0) }
        resolver.fulfill(1)
        _ = try await plain.value
        #expect(nothing.all.isEmpty)

        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 2 * 1024 * 1024)
        // Held in flight until the test is done with it.
        server.route("/paused") { _ in
            LoopbackServer.Response(body: body).pausingBody(afterBytes: 1024 * 1024, for: 3600)
        }
        let api = TestAPI(server)
        let early = ProgressLog()
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/paused"))
        promise.onProgress { early.append($0) }
        await early.waitFor(completedBytes: 1024 * 1024)
        let late = ProgressLog()
        promise.onProgress { late.append($0) }
        await late.waitFor(completedBytes: 1)
        #expect((late.all.first?.completedBytes ?? 0) >= 1024 * 1024)
        promise.cancel()
        // Once cancelled, a handler added even later hears nothing.
        _ = await promise.result
        let afterCancel = ProgressLog()
        promise.onProgress { afterCancel.append($0) }
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        #expect(afterCancel.all.isEmpty)
    }

    @Test("a handler added after the request ended well gets its last report, and only that")
    func handlerAfterTheEnd() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = patternedData(count: 100_000)
        server.route("/file") { _ in LoopbackServer.Response(body: body) }
        let api = TestAPI(server)
        // As `download(...).onProgress { ... }` is when the transfer beats the caller's thread.
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/file"))
        #expect(try await promise.value == body)
        let log = ProgressLog()
        promise.onProgress { log.append($0) }
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        let reports = log.all
        #expect(reports.count == 1, "got \(reports)")
        #expect(reports.first?.direction == .download)
        #expect(reports.first?.completedBytes == Int64(body.count))
        #expect(reports.first?.isComplete == true)

        // A failed request's late handler hears nothing.
        server.route("/missing") { _ in LoopbackServer.Response(status: 404, body: body) }
        let failed: Promise<Data> = api.request(route: api.get(endpoint: "/missing"))
        _ = await failed.result
        let none = ProgressLog()
        failed.onProgress { none.append($0) }
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        #expect(none.all.isEmpty)
    }
}

/// A monitor from a closure.
struct ClosureMonitor: EventMonitor {
    let body: @Sendable (APIEvent) -> Void

    init(_ body: @escaping @Sendable (APIEvent) -> Void) {
        self.body = body
    }

    func receive(_ event: APIEvent) {
        body(event)
    }
}

/// A clock a test moves by hand for a ``ProgressChannel``: scheduled work runs when the test says.
final class ManualClock: Sendable {
    private struct State {
        var now: UInt64 = 0
        var scheduled: [(uptime: UInt64, work: @Sendable () -> Void)] = []
    }
    private let state = Locked(State())

    var progressClock: ProgressClock {
        ProgressClock(
            now: { [self] in state.withLock { $0.now } },
            schedule: { [self] uptime, work in state.withLock { $0.scheduled.append((uptime, work)) } })
    }

    var pending: Int { state.withLock { $0.scheduled.count } }

    func set(_ uptime: UInt64) { state.withLock { $0.now = uptime } }

    /// Runs the work that is due now (work it schedules in turn waits for the next call).
    func runDue() {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            let due = state.scheduled.filter { $0.uptime <= state.now }.map(\.work)
            state.scheduled.removeAll { $0.uptime <= state.now }
            return due
        }
        for work in due { work() }
    }
}
