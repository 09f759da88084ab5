import Foundation
import Osprey
import OspreyTesting

// osprey-demo: an API client written the Osprey way, talking to a scripted loopback server (no
// internet needed). Each step prints what it showed and checks it; the demo exits non-zero if a
// step misbehaves. Run it with `swift run osprey-demo`.

let server = try makeDemoServer()
defer { server.stop() }
let api = DemoAPI(baseURL: server.baseURL.absoluteString)
let checklist = Checklist()
print("osprey-demo: a client of the API at \(server.baseURL.absoluteString)")

await checklist.step("The README's chain: `then` into a second call, handlers on the queues you choose") {
    let ui = QueueName.make("demo.ui")
    let log = QueueName.make("demo.log")
    let record = Record()
    let repositories = try await api.user("osprey")
        .then { user in api.repositories(of: user.login) }
        .onSuccess(in: ui) { repositories in
            record.add("onSuccess on \(QueueName.current): \(repositories.count) repositories")
        }
        .onError(in: ui) { error in record.add("onError: \(error)") }
        .finally(in: log) { record.add("finally on \(QueueName.current)") }
        .value
    await drain(ui)
    await drain(log)
    for line in record.all { checklist.show(line) }
    checklist.check(
        repositories.map(\.name) == ["osprey", "promises"], "the user's repositories: osprey, promises")
    checklist.check(record.all.contains("onSuccess on demo.ui: 2 repositories"), "onSuccess ran on demo.ui")
    checklist.check(record.all.contains("finally on demo.log"), "finally ran on demo.log")
    checklist.check(!record.all.contains { $0.hasPrefix("onError") }, "onError did not run")
}

await checklist.step("An envelope unwrapped by a JSONParser subclass") {
    let raw: String = try await api.request(route: api.get(endpoint: "/users/osprey")).value
    checklist.show("the server sent \(raw)")
    let user = try await api.user("osprey").value
    checklist.show("EnvelopeParser.getInstance gave \(user)")
    checklist.check(user.name == "Osprey", "decoded the user inside {\"data\": …}")
}

await checklist.step("A typed error body") {
    let result = await api.user("nobody").result
    guard case .failure(let error as APIError) = result else {
        return checklist.check(false, "expected an APIError, got \(result)")
    }
    let problem = error.underlyingError as? ServerProblem
    checklist.show(
        "status \(error.statusCode ?? 0), the server says \(problem.map { "\($0.code): \($0.message)" } ?? "?")"
    )
    checklist.check(error.statusCode == 404, "404 arrives as APIError.unacceptableStatus")
    checklist.check(problem?.code == "not_found", "EnvelopeParser.getError decoded a ServerProblem")
}

await checklist.step("A form login") {
    let session = try await api.logIn(Credentials(username: "ada", password: "s3cret & safe")).value
    let sent = server.requests.last { $0.path == "/login" }
    checklist.show("sent Content-Type: \(sent?.value(forHeader: "Content-Type") ?? "?")")
    checklist.show("sent body: \(sent.map { String(decoding: $0.body, as: UTF8.self) } ?? "?")")
    checklist.check(session.token == "form-token", "the form was accepted: token \(session.token)")
    let refused = await api.logIn(Credentials(username: "ada", password: "guess")).result
    if case .failure(let error as APIError) = refused {
        checklist.check(
            error.statusCode == 401,
            "a wrong password is a 401: \((error.underlyingError as? ServerProblem)?.message ?? "?")")
    } else {
        checklist.check(false, "a wrong password should fail, got \(refused)")
    }
}

await checklist.step("A multipart upload streamed from a file, with progress") {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
        "osprey-demo-\(UUID().uuidString).bin")
    try Data(repeating: 0x2A, count: 4 << 20).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let reports = Record()
    let uploaded = try await api.upload(file)
        .onProgress { progress in
            // Both ways are reported: the upload, then the (small) response.
            guard progress.direction == .upload else { return }
            reports.add(
                progress.fractionCompleted.map { "\(Int($0 * 100))%" } ?? "\(progress.completedBytes) bytes")
        }
        .value
    await drain(api.responseQueue)
    checklist.show("upload progress: \(reports.all.joined(separator: " "))")
    checklist.check(
        uploaded.receivedBytes > 4 << 20,
        "the server received \(uploaded.receivedBytes) bytes: the file and the part's head")
    checklist.check(reports.all.last == "100%", "progress ended at 100%")
}

await checklist.step("A typed Request value, SimpleHTTP style") {
    let session = try await api.request(.createSession(Credentials(username: "ada", password: "s3cret")))
        .value
    checklist.check(
        session.token == "json-token", "Request<Session> sent JSON and gave a Session: \(session.token)")
}

await checklist.step("A busy endpoint, retried, with a LoggingMonitor") {
    let resilient = DemoAPI(baseURL: server.baseURL.absoluteString)
    let log = Record()
    resilient.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0.05)
    resilient.configuration.monitors = [LoggingMonitor { log.add($0) }]
    let status = try await resilient.status().value
    await drain(resilient.responseQueue)
    for line in log.all { checklist.show("log: \(line)") }
    checklist.check(status == "all good", "the third attempt succeeded: \(status)")
    checklist.check(
        server.requests.filter { $0.path == "/status" }.count == 3, "the server saw three attempts")
}

await checklist.step("An answer streamed as server-sent events, a word at a time") {
    let started = Date()
    var words: [(String, TimeInterval)] = []
    for try await event in api.answer(to: "What do ospreys eat?").events {
        words.append((event.data, Date().timeIntervalSince(started)))
        checklist.show(String(format: "%.2f s: %@", words.last!.1, event.data))
    }
    checklist.check(words.map(\.0).joined() == "Ospreys eat fish.", "the three words, in order")
    checklist.check(
        words.count == 3 && words[0].1 < words[2].1 - 0.05, "the first word came before the answer ended")
}

await checklist.step("A 0.5 s timeout against a server that answers after 3 s") {
    let started = Date()
    let result = await api.search("swift", timeout: 0.5).result
    let seconds = Date().timeIntervalSince(started)
    checklist.show("failed after \(String(format: "%.2f", seconds)) s with \(result)")
    if case .failure(APIError.timedOut) = result {
        checklist.check(true, "APIError.timedOut")
    } else {
        checklist.check(false, "expected APIError.timedOut")
    }
}

await checklist.step("A request cancelled while the server holds it") {
    let before = server.requests.count
    let search = api.search("cancel me")
    _ = await server.waitForRequests(count: before + 1)
    search.cancel()
    let result = await search.result
    checklist.show("cancel() → \(result)")
    if case .failure(let error) = result {
        checklist.check(error is CancellationError, "the promise ended cancelled")
    } else {
        checklist.check(false, "expected a cancellation")
    }
}

print("\nWhat the server received:")
for request in server.requests {
    print("  \(request.method) \(request.target)")
}
if checklist.failures.isEmpty {
    print("\nEvery step behaved.")
} else {
    print("\n\(checklist.failures.count) step(s) misbehaved:")
    for failure in checklist.failures { print("  \(failure)") }
    exit(1)
}
