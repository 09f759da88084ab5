#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// libcurl, loaded at run time (see the CCurl target): whether it is usable, and why not.
    enum CurlLibrary {
        /// Whether libcurl.so.4 was loaded with every function the transport needs.
        static var isAvailable: Bool { ccurl_load() == 0 }

        /// Why it could not be loaded, or nil.
        static var loadError: String? { ccurl_load_error().map { String(cString: $0) } }

        /// The library's version text, or nil.
        static var version: String? { ccurl_version().map { String(cString: $0) } }

        /// Whether the library was built with HTTP/2 (nghttp2): it is then used over TLS where the
        /// server offers it.
        static var supportsHTTP2: Bool { ccurl_features() & Int32(CCURL_VERSION_HTTP2) != 0 }

        /// The text of a `CURLcode`.
        static func describe(_ code: Int32) -> String {
            String(cString: ccurl_easy_strerror(code))
        }
    }
#endif
