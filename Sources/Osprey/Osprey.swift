// The promise type every request returns comes with `import Osprey`, and on Linux so do
// URLRequest, URLResponse and friends, which live in FoundationNetworking there. Foundation's own
// types (`Data`, `URL`, `JSONDecoder`, which parser overrides name) need `import Foundation`, as
// in any Swift file.
@_exported import Promises

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
