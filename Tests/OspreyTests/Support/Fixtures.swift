import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The query of the URL a route and its parameters make.
func query(
    of route: Route = .get("https://h/p"),
    _ parameters: any RequestParameters,
    encoding: ParameterEncoding = ParameterEncoding()
) throws -> String? {
    try route.makeURLRequest(parameters: parameters, encoding: encoding).url?.query
}

/// The body of the request a route and its parameters make, as text.
func bodyText(of route: Route = .post("https://h/p"), _ parameters: any RequestParameters) throws -> String? {
    try route.makeURLRequest(parameters: parameters).httpBody.map { String(decoding: $0, as: UTF8.self) }
}
