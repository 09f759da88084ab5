import Foundation
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// A task whose `cancel()` blocks until released, as FoundationNetworking's does while its
    /// work queue is busy (inflating a bomb, reading a flood).
    private final class BlockingTask: URLSessionDataTask, @unchecked Sendable {
        // @unchecked: only the two semaphores, which are thread-safe.
        let cancelStarted = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        override var state: URLSessionTask.State { .running }

        override func cancel() {
            cancelStarted.signal()
            release.wait()
        }
    }

    @Suite("Exchange: cancelling never waits on the caller's queue")
    struct ExchangeCancellationTests {
        private func makeExchange(limit: Int? = nil) -> (Exchange, Promise<TransportResponse>, BlockingTask) {
            let (promise, resolver) = Promise<TransportResponse>.pending()
            let request = TransportRequest(
                urlRequest: URLRequest(url: URL(string: "http://127.0.0.1:9/bomb")!), idleTimeout: nil,
                maximumResponseBytes: limit)
            let exchange = Exchange(
                request, resolver: resolver, timers: DispatchQueue(label: "test.timers"),
                control: DispatchQueue(label: "test.control", attributes: .concurrent))
            let task = BlockingTask()
            exchange.adoptForTesting(task)
            return (exchange, promise, task)
        }

        /// Runs `work` on a serial queue standing in for the session's delegate queue; true if it
        /// returned while the task's cancel was still blocked.
        private func returnsPromptly(_ task: BlockingTask, _ work: @escaping @Sendable () -> Void) -> Bool {
            let returned = DispatchSemaphore(value: 0)
            DispatchQueue(label: "test.delegate").async {
                work()
                returned.signal()
            }
            defer { task.release.signal() }
            return returned.wait(timeout: .now() + 30) == .success
        }

        @Test("a size error on the delegate queue fails the request and cancels the task elsewhere")
        func sizeError() async throws {
            let (exchange, promise, task) = makeExchange(limit: 10)
            let response = HTTPURLResponse(
                url: URL(string: "http://127.0.0.1:9/bomb")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Encoding": "gzip", "Transfer-Encoding": "chunked"])!
            #expect(
                returnsPromptly(task) {
                    exchange.received(response)
                    exchange.received(Data(count: 100))
                })
            #expect(task.cancelStarted.wait(timeout: .now() + 30) == .success)
            guard case .failure(APIError.responseTooLarge) = await promise.result else {
                Issue.record("expected responseTooLarge")
                return
            }
        }

        @Test("cancel() from any thread returns while the task's cancel is still blocked")
        func userCancel() async {
            let (exchange, promise, task) = makeExchange()
            #expect(
                returnsPromptly(task) {
                    promise.cancel()
                    exchange.cancel()
                })
            #expect(task.cancelStarted.wait(timeout: .now() + 30) == .success)
            #expect(promise.isCancelled)
        }
    }
#endif
