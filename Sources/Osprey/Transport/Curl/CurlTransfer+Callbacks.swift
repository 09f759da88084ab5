#if canImport(CCurl)
    internal import CCurl
    import Foundation

    // libcurl's callbacks, as C function pointers: each finds its transfer through the context
    // pointer (unretained: the loop holds the transfer while its handle is in the multi handle).

    /// Body bytes (decoded): kept, or left for later while the disk catches up (a pause), or
    /// refused at the size limit (0 stops the transfer).
    let curlWrite: ccurl_data_callback = { bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        switch transfer.received(UnsafeRawBufferPointer(start: bytes, count: size * count)) {
        case .taken: return size * count
        case .pause: return Int(CCURL_WRITEFUNC_PAUSE)
        case .stop: return 0
        }
    }

    /// One header line, the status line included.
    let curlHeader: ccurl_data_callback = { bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: size * count), as: UTF8.self)
        return transfer.receivedHeader(line) ? size * count : 0
    }

    /// Bytes moved so far: activity for the idle timeout, and upload progress.
    let curlProgress: ccurl_progress_callback = { context, _, downloaded, uploadTotal, uploaded in
        guard let context else { return 1 }
        Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            .moved(downloaded: downloaded, uploaded: uploaded, uploadTotal: uploadTotal)
        return 0
    }

    /// Fills libcurl's buffer from the body file.
    let curlRead: ccurl_data_callback = { buffer, size, count, context in
        guard let buffer, let context else { return Int(CCURL_READFUNC_ABORT) }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        guard let file = transfer.bodyFile else { return Int(CCURL_READFUNC_ABORT) }
        let read = fread(buffer, 1, size * count, file)
        return read == 0 && ferror(file) != 0 ? Int(CCURL_READFUNC_ABORT) : read
    }

    extension CurlTransfer {
        /// Forgets the previous hop's response.
        func resetResponse() {
            statusLine = nil
            headerFields = []
            response = nil
            bodyLength = nil
            data = Data()
            bodyBytes = 0
            sinking = false
            writer = nil
            failure = nil
            movedBytes = 0
            lastActivity = DispatchTime.now().uptimeNanoseconds
        }

        /// A header line arrived: a head that comes slowly is activity too.
        func receivedHeader(_ line: String) -> Bool {
            lastActivity = DispatchTime.now().uptimeNanoseconds
            let trimmed = line.trimmingCharacters(in: .newlines)
            if trimmed.hasPrefix("HTTP/") {
                // A new status line: an interim 1xx response is forgotten.
                let parts = trimmed.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, let code = Int(parts[1]) else {
                    failure = .transport(
                        underlying: ResponseFraming.error(reason: "status line"), context: context)
                    return false
                }
                statusLine = (String(parts[0]), code)
                headerFields = []
                return true
            }
            guard !trimmed.isEmpty else { return endOfHead() }
            guard let colon = trimmed.firstIndex(of: ":") else { return true }  // obsolete folding: ignored
            let name = String(trimmed[..<colon])
            let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
            headerFields.append((name, value))
            return true
        }

        /// The blank line after the head: a final response is checked like URLSession's.
        private func endOfHead() -> Bool {
            guard let statusLine, statusLine.code >= 200 else { return true }
            var fields: [String: String] = [:]
            for (name, value) in headerFields {
                // Repeated fields are joined, as FoundationNetworking does.
                if let key = fields.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                    fields[key] = "\(fields[key]!), \(value)"
                } else {
                    fields[name] = value
                }
            }
            guard
                let url = request.url,
                let response = HTTPURLResponse(
                    url: url, statusCode: statusLine.code, httpVersion: statusLine.version,
                    headerFields: fields)
            else { return true }
            self.response = response
            switch original.framingVerdict(on: response, method: request.httpMethod) {
            case .invalid(let reason):
                failure = .transport(underlying: ResponseFraming.error(reason: reason), context: context)
                return false
            case .tooLarge:
                failure = .responseTooLarge(limit: original.tooLargeLimit, context: context)
                return false
            case .accept(let length):
                bodyLength = length
                // Room for a body held in memory up front; capped, the header is only the server's word.
                if let length, original.downloadSink == nil {
                    data.reserveCapacity(
                        Int(min(length, Int64(original.maximumResponseBytes ?? 8 << 20), 8 << 20)))
                }
            }
            return beginSink(for: response)
        }

        /// Offers the final response (not a redirect Osprey will follow) to the download sink, if
        /// any; false stops the transfer when the sink refuses it with an error.
        private func beginSink(for response: HTTPURLResponse) -> Bool {
            guard let sink = original.downloadSink, !original.willFollow(response) else { return true }
            do {
                sinking = try sink.begin(response)
                sinkBegun = true
                if sinking {
                    writer = CurlDiskWriter(
                        sink: sink,
                        resume: { [weak self, weak loop] in
                            if let self { loop?.submit(.resume(self)) }
                        },
                        fail: { [weak self, weak loop] error in
                            guard let self else { return }
                            loop?.submit(
                                .stop(
                                    self,
                                    {
                                        .fileFailed(
                                            reason: "could not write the download", underlying: error,
                                            context: $0)
                                    }))
                        })
                }
                return true
            } catch {
                failure = error as? APIError ?? .transport(underlying: error, context: context)
                return false
            }
        }

        /// What became of a piece of the body.
        enum Received {
            case taken
            /// Not taken: libcurl offers it again once the transfer is unpaused.
            case pause
            case stop
        }

        /// Body bytes arrived (decoded).
        func received(_ bytes: UnsafeRawBufferPointer) -> Received {
            lastActivity = DispatchTime.now().uptimeNanoseconds
            if sinking, let writer {
                if let limit = original.downloadSink?.maximumBytes, bodyBytes + Int64(bytes.count) > limit {
                    failure = .responseTooLarge(limit: Int(clamping: limit), context: context)
                    return .stop
                }
                guard writer.offer(bytes) else { return .pause }
                bodyBytes += Int64(bytes.count)
            } else {
                bodyBytes += Int64(bytes.count)
                data.append(contentsOf: bytes)
                if let limit = original.maximumResponseBytes, data.count > limit {
                    failure = .responseTooLarge(limit: limit, context: context)
                    return .stop
                }
            }
            guard let response, !original.willFollow(response) else { return .taken }
            let offset = sinking ? original.downloadSink?.startOffset ?? 0 : 0
            original.progress?(.download, offset + bodyBytes, bodyLength.map { offset + $0 })
            return .taken
        }

        /// Bytes moved, as libcurl counts them.
        func moved(downloaded: Int64, uploaded: Int64, uploadTotal: Int64) {
            let moved = downloaded + uploaded
            guard moved > movedBytes else { return }
            movedBytes = moved
            lastActivity = DispatchTime.now().uptimeNanoseconds
            if uploaded > 0 { original.progress?(.upload, uploaded, uploadTotal > 0 ? uploadTotal : nil) }
        }
    }
#endif
