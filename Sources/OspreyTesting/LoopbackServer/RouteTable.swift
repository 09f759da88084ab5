import Foundation

/// The routes of the loopback server and of `MockTransport`: method + path pattern → handler, the newest registration first.
///
/// Patterns are split on `/`. A `:name` segment matches one path segment and captures it
/// percent-decoded; a final `*name` (or `*`) captures the rest of the path. Everything else must
/// match exactly, so `/a` and `/a/` are different paths.
struct RouteTable<Handler> {
    private enum Segment {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    private struct Route {
        var method: String?
        var segments: [Segment]
        var handler: Handler
    }

    private var routes: [Route] = []

    mutating func add(method: String?, pattern: String, handler: Handler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map {
            part -> Segment in
            if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
            if part.hasPrefix("*") { return .rest(String(part.dropFirst())) }
            return .literal(String(part))
        }
        routes.append(Route(method: method?.uppercased(), segments: segments, handler: handler))
    }

    /// The handler for a request and the parameters its pattern captured, or nil.
    func match(method: String, path: String) -> (Handler, [String: String])? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for route in routes.reversed() where route.method == nil || route.method == method {
            if let parameters = Self.match(route.segments, parts) { return (route.handler, parameters) }
        }
        return nil
    }

    private static func match(_ segments: [Segment], _ parts: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                let rest = parts[min(index, parts.count)...].joined(separator: "/")
                if !name.isEmpty { parameters[name] = rest.removingPercentEncoding ?? rest }
                return parameters
            case .parameter(let name):
                guard index < parts.count, !parts[index].isEmpty else { return nil }
                parameters[name] = parts[index].removingPercentEncoding ?? parts[index]
            case .literal(let literal):
                guard index < parts.count,
                    parts[index] == literal || parts[index].removingPercentEncoding == literal
                else { return nil }
            }
        }
        return segments.count == parts.count ? parameters : nil
    }
}
