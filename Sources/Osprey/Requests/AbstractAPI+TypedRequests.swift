import Promises

extension AbstractAPI {
    /// Typed requests are sent relative to a base URL, so only an API that conforms to
    /// ``BaseAPI`` can send them: this overload exists to say so where the compiler would
    /// otherwise look for the request among `RequestBuilder`'s members.
    @available(
        *, unavailable,
        message:
            "typed requests are sent relative to a base URL: make the API conform to BaseAPI (class MyAPI: AbstractAPI, BaseAPI, @unchecked Sendable { let baseURL = \"https://…\" })"
    )
    public func request<Output>(_ request: Request<Output>) -> Promise<Output> {
        fatalError("unavailable")
    }
}
