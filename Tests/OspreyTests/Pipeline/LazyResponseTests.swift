import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// A transport response made from its head's parts has its `HTTPURLResponse` made only when
/// someone reads it: the default validation and a plain `JSONParser` never do.
@Suite("Pipeline: the HTTPURLResponse is made only when asked for")
struct LazyResponseTests {
    /// Answers every request with a JSON body from parts, and keeps what it answered.
    final class PartsTransport: HTTPTransport, @unchecked Sendable {
        // @unchecked: `answered` is only touched under its lock.
        let answered = Locked<[TransportResponse]>([])
        let status: Int

        init(status: Int = 200) {
            self.status = status
        }

        func send(_ request: TransportRequest) -> Promise<TransportResponse> {
            var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
            headers.add(name: "X-Trace", value: "t-1")
            headers.add(name: "x-trace", value: "t-2")
            let response = TransportResponse(
                url: request.urlRequest.url!, statusCode: status, httpVersion: "HTTP/1.1", headers: headers,
                data: Data(#"{"name": "osprey"}"#.utf8), request: request.urlRequest)
            answered.withLock { $0.append(response) }
            return Promise(value: response)
        }
    }

    struct Item: Decodable, Sendable, Equatable {
        var name: String
    }

    final class ItemsAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL = "http://items.invalid"
        let seenHead = Locked<ResponseHead?>(nil)
        let checksHeaders: Bool

        init(
            transport: PartsTransport, parser: any ResponseParser = JSONParser(), checksHeaders: Bool = false
        ) {
            self.checksHeaders = checksHeaders
            super.init(responseParser: parser, transport: transport)
        }

        override func validate(_ response: ResponseHead, data: Data) -> Bool {
            guard checksHeaders else { return super.validate(response, data: data) }
            seenHead.withLock { $0 = response }
            return response.headers["x-trace"] == "t-1" && super.validate(response, data: data)
        }
    }

    /// A subclass, whose `getInstance` may read the response.
    final class TracingParser: JSONParser, @unchecked Sendable {
        let traces = Locked<[String]>([])

        override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
            let trace = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Trace") ?? "none"
            traces.withLock { $0.append(trace) }
            return try super.getInstance(from: data, response: response)
        }
    }

    @Test("parts give the status and headers; the response is made once, with the same fields")
    func parts() throws {
        let url = try #require(URL(string: "http://a.invalid/x"))
        let exchange = TransportResponse(
            url: url, statusCode: 201, httpVersion: "HTTP/2", headers: ["ETag": "\"1\"", "Vary": "Accept"],
            data: Data(), request: URLRequest(url: url))
        #expect(exchange.statusCode == 201)
        #expect(exchange.headers["etag"] == "\"1\"")
        #expect(!exchange.head.isMade)
        let response = exchange.response
        #expect(exchange.head.isMade)
        #expect(response === exchange.response)
        #expect(response.statusCode == 201)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "etag") == "\"1\"")
        #expect(response.value(forHTTPHeaderField: "Vary") == "Accept")
    }

    @Test("a request decoded by a plain JSONParser, validated by default, makes no HTTPURLResponse")
    func plainRequestMakesNone() async throws {
        let transport = PartsTransport()
        let api = ItemsAPI(transport: transport)
        let item: Item = try await api.request(route: api.get(endpoint: "/item")).value
        #expect(item == Item(name: "osprey"))
        let answered = transport.answered.withLock { $0 }
        #expect(answered.count == 1)
        #expect(answered.allSatisfy { !$0.head.isMade })
    }

    @Test("an override of validate sees the head's headers in order, case-insensitively")
    func validateSeesHeaders() async throws {
        let transport = PartsTransport()
        let api = ItemsAPI(transport: transport, checksHeaders: true)
        let item: Item = try await api.request(route: api.get(endpoint: "/item")).value
        #expect(item == Item(name: "osprey"))
        let head = try #require(api.seenHead.withLock { $0 })
        #expect(head.statusCode == 200)
        #expect(head.headers.values(for: "X-TRACE") == ["t-1", "t-2"])
        #expect(head.request.url?.path == "/item")
        // Only asking made Foundation's response.
        #expect(transport.answered.withLock { $0 }.allSatisfy { !$0.head.isMade })
        #expect(head.httpResponse.statusCode == 200)
    }

    @Test("a JSONParser subclass gets the response, with its headers")
    func subclassGetsResponse() async throws {
        let transport = PartsTransport()
        let parser = TracingParser()
        let api = ItemsAPI(transport: transport, parser: parser)
        let item: Item = try await api.request(route: api.get(endpoint: "/item")).value
        #expect(item == Item(name: "osprey"))
        #expect(parser.traces.withLock { $0 } == ["t-1, t-2"])
    }

    @Test("an APIResponse has the status and joined headers without a response; reading it makes one")
    func apiResponseMakesNoneUntilRead() async throws {
        let transport = PartsTransport()
        let api = ItemsAPI(transport: transport)
        let answer: APIResponse<Item> = try await api.request(route: api.get(endpoint: "/item")).value
        #expect(answer.value == Item(name: "osprey"))
        #expect(answer.statusCode == 200)
        // Repeated names joined in their first field, as `HTTPURLResponse` presents them.
        #expect(answer.headers["x-trace"] == "t-1, t-2")
        #expect(answer.headers.values(for: "X-Trace") == ["t-1, t-2"])
        #expect(answer.headers.map(\.name) == ["Content-Type", "X-Trace"])
        #expect(transport.answered.withLock { $0 }.allSatisfy { !$0.head.isMade })
        #expect(answer.response.value(forHTTPHeaderField: "X-Trace") == "t-1, t-2")
        #expect(transport.answered.withLock { $0 }.allSatisfy { $0.head.isMade })
    }

    @Test("a failing status makes the response for the error's context")
    func errorHasResponse() async throws {
        let transport = PartsTransport(status: 503)
        let api = ItemsAPI(transport: transport)
        let error = await (api.request(route: api.get(endpoint: "/item")) as Promise<Item>).apiError
        #expect(error?.statusCode == 503)
        #expect(error?.response?.value(forHTTPHeaderField: "X-Trace") == "t-1, t-2")
    }

    @Test("monitors get the response of a request that made none for itself")
    func monitorsGetResponse() async throws {
        struct Recorder: EventMonitor {
            let statuses: Locked<[Int?]>
            func receive(_ event: APIEvent) {
                if case .succeeded = event.kind {
                    statuses.withLock { $0.append(event.response?.statusCode) }
                }
            }
        }
        let transport = PartsTransport()
        let api = ItemsAPI(transport: transport)
        let statuses = Locked<[Int?]>([])
        api.configuration.monitors = [Recorder(statuses: statuses)]
        let _: Item = try await api.request(route: api.get(endpoint: "/item")).value
        await api.responseQueue.drained()
        #expect(statuses.withLock { $0 } == [200])
    }
}

extension DispatchQueue {
    /// Returns once the work queued on this queue so far has run.
    fileprivate func drained() async {
        await withCheckedContinuation { done in async { done.resume() } }
    }
}
