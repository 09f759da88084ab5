/// `base` and `endpoint` joined with exactly one `/`, keeping any path prefix of the base and any
/// trailing slash of the endpoint; an empty endpoint or one starting with `?` or `#` adds none.
func joinURL(_ base: String, _ endpoint: String) -> String {
    var base = Substring(base)
    while base.hasSuffix("/") { base = base.dropLast() }
    var path = Substring(endpoint)
    while path.hasPrefix("/") { path = path.dropFirst() }
    if path.isEmpty { return endpoint.hasPrefix("/") ? base + "/" : String(base) }
    if path.hasPrefix("?") || path.hasPrefix("#") { return String(base + path) }
    return base + "/" + path
}
