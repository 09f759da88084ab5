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
        return transfer.receivedHeader(UnsafeRawBufferPointer(start: bytes, count: size * count))
            ? size * count : 0
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

    /// Fills libcurl's buffer from a streamed body: what is ready, or a pause until more is.
    let curlReadStream: ccurl_data_callback = { buffer, size, count, context in
        guard let buffer, let context else { return Int(CCURL_READFUNC_ABORT) }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        guard let reader = transfer.bodyReader else { return Int(CCURL_READFUNC_ABORT) }
        do {
            switch try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) {
            case .bytes(let read):
                return read
            case .wait:
                // Waiting for our own producer is not the server being idle.
                transfer.pausedForReader = true
                return Int(CCURL_READFUNC_PAUSE)
            case .end:
                return 0
            }
        } catch {
            transfer.failure = .transport(underlying: error, context: transfer.context)
            return Int(CCURL_READFUNC_ABORT)
        }
    }

    extension CurlTransfer {
        /// Forgets the previous hop's response.
        func resetResponse() {
            headReader = ResponseHeadReader()
            headReader.acceptsSwitchingProtocols = upgradeSink != nil
            handshake = nil
            head = nil
            madeResponse = nil
            followsThisHop = false
            bodyLength = nil
            body.reset()
            bodyBytes = 0
            sinking = false
            writer = nil
            flowSink = nil
            failure = nil
            movedBytes = 0
            lastActivity = DispatchTime.now().uptimeNanoseconds
        }

        /// A header line arrived, with its line end: a head that comes slowly is activity too.
        func receivedHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
            lastActivity = DispatchTime.now().uptimeNanoseconds
            switch headReader.take(bytes) {
            case .needMore:
                return true
            case .invalidStatusLine:
                failure = .transport(
                    underlying: ResponseFraming.error(reason: "status line"), context: context)
                return false
            case .finalHead:
                return endOfHead()
            }
        }

        /// The blank line after a final head: it is checked like URLSession's.
        private func endOfHead() -> Bool {
            guard let statusLine = headReader.status else { return true }
            guard let url = request.url else { return true }
            // Read from the lines as they came: a dictionary of the fields cost microseconds per
            // response on the loop.
            if let jar = settings.cookies, headReader.has("Set-Cookie") {
                // Every hop's cookies are kept, a redirect's included.
                let lines = headReader.values(of: "Set-Cookie")
                if !lines.isEmpty { jar.store(setCookieLines: lines, from: url) }
            }
            head = CurlResponseHead(
                url: url, statusCode: statusLine.code, version: statusLine.version,
                headers: HTTPHeaders(lines: headReader.lines))
            followsThisHop = original.willFollow(
                statusCode: statusLine.code, hasLocation: headReader.has("Location"))
            switch original.framingVerdict(
                statusCode: statusLine.code, headers: FramingHeaders(lines: headReader.lines),
                method: request.httpMethod)
            {
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
                    body.reserve(Int(min(length, Int64(original.maximumResponseBytes ?? 8 << 20), 8 << 20)))
                }
            }
            return beginSink()
        }

        /// Offers the final response (not a redirect Osprey will follow) to the download sink, if
        /// any; false stops the transfer when the sink refuses it with an error.
        private func beginSink() -> Bool {
            guard let sink = original.downloadSink, !followsThisHop, let response else { return true }
            do {
                if let flow = sink as? any FlowControlledSink {
                    // A stream: its buffer takes the pieces here, on the loop, or pauses the transfer.
                    sinking = try flow.begin(response, request: request)
                    sinkBegun = true
                    flowSink = sinking ? flow : nil
                    return true
                }
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
            if sinking, let flowSink {
                let resume: @Sendable () -> Void = { [weak self, weak loop] in
                    if let self { loop?.submit(.resume(self)) }
                }
                guard flowSink.offer(bytes, resume: resume) else {
                    pausedForReader = true
                    return .pause
                }
                bodyBytes += Int64(bytes.count)
            } else if sinking, let writer {
                if let limit = original.downloadSink?.maximumBytes, bodyBytes + Int64(bytes.count) > limit {
                    failure = .responseTooLarge(limit: Int(clamping: limit), context: context)
                    return .stop
                }
                guard writer.offer(bytes) else {
                    pausedForReader = true
                    return .pause
                }
                bodyBytes += Int64(bytes.count)
            } else {
                bodyBytes += Int64(bytes.count)
                body.append(bytes)
                if let limit = original.maximumResponseBytes, body.count > limit {
                    failure = .responseTooLarge(limit: limit, context: context)
                    return .stop
                }
            }
            guard head != nil, !followsThisHop else { return .taken }
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
