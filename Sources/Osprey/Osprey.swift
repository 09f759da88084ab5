// `import Osprey` is enough for API clients: the promise type every request returns comes with
// it, and on Linux so do URLRequest, URLResponse and friends, which live in FoundationNetworking
// there (parser overrides such as `getInstance(from:response:)` name them).
@_exported import Promises

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
