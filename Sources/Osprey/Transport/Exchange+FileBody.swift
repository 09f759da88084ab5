import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    extension Exchange {
        /// The largest file body handed to FoundationNetworking in memory, with its length;
        /// a larger one goes as a stream, chunked.
        static let largestInMemoryFileBody: Int64 = 8 << 20

        /// `request` carrying the file as its body in a form FoundationNetworking reads without
        /// pausing the transfer, and the body's length; nil if the file cannot be read (an
        /// upload task then fails with FoundationNetworking's own file error).
        ///
        /// FoundationNetworking reads a file body (`uploadTask(with:fromFile:)`) with DispatchIO
        /// and pauses the transfer while a read is under way; when the task ends meanwhile
        /// (cancelled, timed out, or answered before the body was sent), the read's completion
        /// unpauses a finished transfer and its `try!` ends the process (libcurl error 43 in
        /// EasyHandle.swift). Bytes in memory and a stream are read at once, never paused.
        static func carrying(_ file: URL, in request: URLRequest) -> (URLRequest, Int64)? {
            var request = request
            guard
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size]
                    as? NSNumber
            else { return nil }
            if size.int64Value <= largestInMemoryFileBody {
                guard let data = try? Data(contentsOf: file) else { return nil }
                request.httpBody = data
                return (request, Int64(data.count))
            }
            guard let stream = InputStream(url: file) else { return nil }
            request.httpBodyStream = stream
            // libcurl adds chunked framing to a stream: a caller's own length beside it would make
            // a request with both, which servers and proxies may read differently.
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
            return (request, size.int64Value)
        }
    }
#endif
