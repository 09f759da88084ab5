#if canImport(CCurl)
    internal import CCurl
    import Foundation

    extension CurlTransfer {
        /// Sets the handle up for the current hop: URL, method, headers, body, callbacks. libcurl
        /// follows no redirect and decodes gzip and deflate (the size limit counts decoded bytes).
        func configure() throws {
            guard let url = request.url?.absoluteString else {
                throw APIError.invalidRequest(reason: "no URL")
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            try set(CCURLOPT_URL, string: url)
            try set(CCURLOPT_NOSIGNAL, 1)
            try set(CCURLOPT_FOLLOWLOCATION, 0)
            try set(
                CCURLOPT_HTTP_VERSION,
                url.lowercased().hasPrefix("https:") ? CCURL_HTTP_VERSION_2TLS : CCURL_HTTP_VERSION_1_1)
            try set(CCURLOPT_ACCEPT_ENCODING, string: "")
            if let trustedCertificates { try set(CCURLOPT_CAINFO, string: trustedCertificates.path) }
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_PRIVATE), context))
            errorBuffer[0] = 0
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_ERRORBUFFER), errorBuffer))
            try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_WRITEFUNCTION), curlWrite))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_WRITEDATA), context))
            try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_HEADERFUNCTION), curlHeader))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_HEADERDATA), context))
            try set(CCURLOPT_NOPROGRESS, 0)
            try check(
                ccurl_easy_setopt_progress_callback(handle, Int32(CCURLOPT_XFERINFOFUNCTION), curlProgress))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_XFERINFODATA), context))
            try configureMethodAndBody()
            var list: OpaquePointer?
            for (name, value) in request.allHTTPHeaderFields ?? [:] {
                // "Name;" is libcurl's way to send a header with an empty value.
                let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
                guard let appended = ccurl_slist_append(list, line) else { throw URLError(.unknown) }
                list = appended
            }
            headerList = list
            if let list {
                try check(
                    ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(list)))
            }
            resetResponse()
        }

        private func configureMethodAndBody() throws {
            let method = request.httpMethod ?? "GET"
            let hasFile = original.bodyFileURL != nil && method != "GET" && method != "HEAD"
            let body = request.httpBody ?? Data()
            switch method {
            case "GET" where !hasFile && body.isEmpty:
                try set(CCURLOPT_HTTPGET, 1)
            case "HEAD":
                try set(CCURLOPT_NOBODY, 1)
            default:
                if hasFile || !body.isEmpty || method == "POST" {
                    // A body goes as a POST's, under the request's own method.
                    try set(CCURLOPT_POST, 1)
                    if method != "POST" { try set(CCURLOPT_CUSTOMREQUEST, string: method) }
                    try configureBody(body, fromFile: hasFile ? original.bodyFileURL : nil)
                } else {
                    try set(CCURLOPT_CUSTOMREQUEST, string: method)
                }
            }
        }

        private func configureBody(_ body: Data, fromFile file: URL?) throws {
            if let file {
                guard let stream = fopen(file.path, "rb") else {
                    throw APIError.fileFailed(
                        reason: "could not open the body file", underlying: nil,
                        context: .init(request: request))
                }
                bodyFile = stream
                let size =
                    (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? nil
                try check(ccurl_easy_setopt_offset(handle, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), size ?? -1))
                try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_READFUNCTION), curlRead))
                try check(
                    ccurl_easy_setopt_pointer(
                        handle, Int32(CCURLOPT_READDATA), Unmanaged.passUnretained(self).toOpaque()))
                return
            }
            // libcurl reads the body from this copy until the hop ends.
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 1)
            body.copyBytes(to: copy)
            requestBody = copy
            try check(
                ccurl_easy_setopt_offset(handle, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), Int64(body.count)))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_POSTFIELDS), copy.baseAddress))
        }

        private func set(_ option: Int, _ value: Int) throws {
            try check(ccurl_easy_setopt_long(handle, Int32(option), value))
        }

        private func set(_ option: Int, string: String) throws {
            // libcurl copies strings given to setopt (since 7.17).
            try check(string.withCString { ccurl_easy_setopt_pointer(handle, Int32(option), $0) })
        }

        private func check(_ code: Int32) throws {
            guard code == 0 else {
                throw URLError(
                    .unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl: \(CurlLibrary.describe(code))"])
            }
        }
    }
#endif
