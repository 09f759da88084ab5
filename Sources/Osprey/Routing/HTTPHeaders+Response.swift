import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPHeaders {
    /// A response's headers.
    init(_ response: HTTPURLResponse) {
        self.init()
        for (name, value) in response.allHeaderFields {
            add(name: "\(name)", value: "\(value)")
        }
    }
}
