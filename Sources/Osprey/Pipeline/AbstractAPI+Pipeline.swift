import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AbstractAPI {
    /// The request pipeline, stage by stage. Returns at once; the work happens on the request
    /// queue, and the promise settles once, on the response queue by default.
    func perform<Value: Sendable>(
        route: Route,
        parameters: (any RequestParameters)?,
        body: (any ResponseBodyPlan)? = nil,
        configuration: APIConfiguration? = nil,
        decode: @escaping @Sendable (TransportResponse, any ResponseParser) throws -> Value
    ) -> Promise<Value> {
        let configuration = configuration ?? self.configuration
        let (promise, resolver) = Promise<Value>.pending(defaultQueue: responseQueue)
        // Where `onProgress` finds the request's progress: kept with the promise.
        let progress = ProgressChannel(defaultQueue: responseQueue)
        promise.attachment = progress
        // The closure keeps the API alive until the request is done.
        requestQueue.async { [self] in
            // 0. A request cancelled before it started sends nothing.
            guard resolver.isPending else { return progress.close() }

            // 1–2. Preprocess, then build the URLRequest (nothing has been sent if this fails).
            let urlRequest: URLRequest
            let bodyFile: RequestDraft.BodyFile?
            let bodyStream: BodyStream?
            do {
                (urlRequest, bodyFile, bodyStream) = try makeURLRequest(
                    route: route, parameters: parameters, configuration: configuration)
            } catch {
                progress.close()
                resolver.reject(mapError(error as? APIError ?? .preprocessingFailed(underlying: error)))
                return
            }

            // 3–6. Adapt, send, validate and parse, retry per the policy, settle: RequestRun.
            RequestRun(
                api: self,
                resolver: resolver,
                request: urlRequest,
                bodyFile: bodyFile,
                bodyStream: bodyStream,
                idleTimeout: parameters?.timeout ?? configuration.timeout,
                configuration: configuration,
                progress: progress,
                body: body,
                decode: decode
            ).start()
        }
        return promise
    }

    private func makeURLRequest(
        route: Route,
        parameters: (any RequestParameters)?,
        configuration: APIConfiguration
    ) throws -> (URLRequest, RequestDraft.BodyFile?, BodyStream?) {
        do {
            try parameters?.preprocess()
            try preprocess(route: route, parameters: parameters)
        } catch {
            throw error as? APIError ?? .preprocessingFailed(underlying: error)
        }
        var headers = configuration.headers
        if let accept = responseParser.acceptHeader, !headers.contains("Accept") {
            headers["Accept"] = accept
        }
        return try route.prepareRequest(
            parameters: parameters, headers: headers, encoding: configuration.encoding)
    }

    /// Validates the status, then decodes the body (or the error body, for the error).
    func handle<Value>(
        _ exchange: TransportResponse,
        decode: (TransportResponse, any ResponseParser) throws -> Value
    ) throws -> Value {
        // The context (which needs an `HTTPURLResponse`, made on demand) only for an error.
        func context() -> APIError.Context {
            APIError.Context(request: exchange.request, response: exchange.response, data: exchange.data)
        }
        // A final `101` exists only where a WebSocket asked the transport for an upgrade, which
        // checked the handshake already: it is that request's success, whatever the API's rule
        // for statuses (an override of `validate` written for 2xx would refuse it).
        guard exchange.statusCode == 101 || validate(ResponseHead(exchange), data: exchange.data) else {
            let serverError = responseParser.getError(from: exchange.data, response: exchange.response)
            throw APIError.unacceptableStatus(context: context(), serverError: serverError)
        }
        do {
            return try decode(exchange, responseParser)
        } catch let error as APIError {
            // Already a stage's error (a download that could not be moved into place, say).
            throw error
        } catch {
            throw APIError.parsingFailed(underlying: error, context: context())
        }
    }
}
