import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The next request of a redirect chain (RFC 9110 §15.4), or why there is none.
package enum RedirectRules {
    /// The statuses whose `Location` is followed.
    package static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    package enum Decision {
        /// Follow with this request; `leftOrigin` is true when the origin changed.
        case follow(URLRequest, leftOrigin: Bool)
        /// Not a redirect to follow: deliver the response as it is.
        case deliver
        /// Refuse, with the reason.
        case refuse(String)
    }

    /// - Parameter webSocket: whether the chain opens a WebSocket (nil: when the original request
    ///   asks for the upgrade, as a handshake a transport hands over does; a message task's, which
    ///   carries no `Upgrade` of its own, says so).
    package static func decide(
        after response: HTTPURLResponse,
        to request: URLRequest,
        original: URLRequest,
        sensitiveHeaders: Set<String>,
        webSocket: Bool? = nil
    ) -> Decision {
        guard followedStatuses.contains(response.statusCode),
            let location = response.value(forHTTPHeaderField: "Location"), let current = request.url
        else { return .deliver }
        guard var target = URL(string: location, relativeTo: current)?.absoluteURL else {
            return .refuse("invalid Location")
        }
        // A WebSocket's handshake may be sent on to a `ws`/`wss` URL: it goes to the http(s) one
        // that URL's handshake uses (RFC 6455 §3), under every rule below.
        if webSocket ?? (original.value(forHTTPHeaderField: "Upgrade")?.lowercased() == "websocket"),
            let scheme = target.httpScheme, scheme != target.scheme?.lowercased(),
            var components = URLComponents(url: target, resolvingAgainstBaseURL: false)
        {
            components.scheme = scheme
            target = components.url ?? target
        }
        let scheme = target.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", target.host != nil else {
            return .refuse("Location is not an http(s) URL")
        }
        if current.scheme?.lowercased() == "https", scheme == "http" {
            return .refuse("https to http downgrade")
        }
        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        if response.statusCode == 303 && method != "HEAD"
            || (response.statusCode == 301 || response.statusCode == 302) && method == "POST"
        {
            next.httpMethod = "GET"
            next.httpBody = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        let leftOrigin = !target.hasSameOrigin(as: original.url)
        if leftOrigin {
            // A caller's `Host` names the first origin: sent to another, it would route the
            // request (and its credentials' scope) back to the first.
            for name in (next.allHTTPHeaderFields ?? [:]).keys
            where HTTPHeaders.isSensitive(name, declared: sensitiveHeaders)
                || HTTPHeaders.same(name, "Host")
            {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        do {
            try TransportRequest.validate(next)
        } catch APIError.invalidRequest(let reason) {
            return .refuse(reason)
        } catch {
            return .refuse("\(error)")
        }
        return .follow(next, leftOrigin: leftOrigin)
    }
}
