#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// What the loop runs for a socket it watches on behalf of an owner that reads and writes it
    /// itself: an upgrade's handshake (``CurlTransfer``), then its connection (``CurlChannel``).
    /// On the loop's thread only.
    protocol CurlSocketOwner: AnyObject {
        /// The socket is ready (`CCURL_CHANNEL_*` bits).
        func socketReady(_ events: Int32, in multi: OpaquePointer)
        /// Work handed to the loop from another thread (``CurlLoop/Command/service(_:)``).
        func service(in multi: OpaquePointer)
        /// The loop is shutting down.
        func loopStopped(_ error: CurlLoopStopped, in multi: OpaquePointer)
    }

    extension CurlTransfer: CurlSocketOwner {
        /// libcurl made the upgrade's connection: write the request, then read the answer.
        func beginHandshake(in multi: OpaquePointer) {
            let socket = ccurl_easy_active_socket(handle)
            guard socket >= 0, let loop else {
                ccurl_multi_remove_handle(multi, handle)
                return fail(.transport(underlying: URLError(.cannotConnectToHost), context: context))
            }
            handshake = CurlHandshake(
                socket: socket, request: CurlHandshake.requestHead(for: request, cookies: settings.cookies))
            lastActivity = DispatchTime.now().uptimeNanoseconds
            // Kept among the loop's transfers: its timeouts and cancellation still apply.
            loop.adopt(self)
            loop.watchChannel(socket, owner: self, events: Int32(CCURL_CHANNEL_WRITABLE))
            socketReady(Int32(CCURL_CHANNEL_WRITABLE), in: multi)
        }

        func socketReady(_ events: Int32, in multi: OpaquePointer) {
            guard let handshake else { return }
            if !handshake.requestSent {
                guard writeRequest(handshake, in: multi), handshake.requestSent else { return }
                loop?.watchChannel(handshake.socket, owner: self, events: Int32(CCURL_CHANNEL_READABLE))
            }
            readAnswer(handshake, in: multi)
        }

        func service(in multi: OpaquePointer) {}

        /// A handshake in flight is among the loop's transfers, which the loop fails itself.
        func loopStopped(_ error: CurlLoopStopped, in multi: OpaquePointer) {}

        /// Sends what the socket takes of the request; false when the handshake ended (failed).
        private func writeRequest(_ handshake: CurlHandshake, in multi: OpaquePointer) -> Bool {
            while !handshake.requestSent {
                var sent = 0
                let code = handshake.unsent.withUnsafeBytes {
                    ccurl_easy_send(handle, $0.baseAddress, $0.count, &sent)
                }
                if code == Int32(CCURLE_AGAIN) { return true }
                guard code == 0 else {
                    endHandshake(result: code, in: multi)
                    return false
                }
                handshake.sent(sent)
            }
            lastActivity = DispatchTime.now().uptimeNanoseconds
            return true
        }

        /// Reads what has arrived of the answer, until the socket has no more or the handshake ends.
        private func readAnswer(_ handshake: CurlHandshake, in multi: OpaquePointer) {
            var scratch = [UInt8](repeating: 0, count: 16 << 10)
            while self.handshake === handshake {
                var received = 0
                let code = scratch.withUnsafeMutableBytes {
                    ccurl_easy_recv(handle, $0.baseAddress, $0.count, &received)
                }
                if code == Int32(CCURLE_AGAIN) { return }
                guard code == 0 else { return endHandshake(result: code, in: multi) }
                guard received > 0 else { return connectionClosed(handshake, in: multi) }
                lastActivity = DispatchTime.now().uptimeNanoseconds
                scratch.withUnsafeBytes {
                    take(UnsafeRawBufferPointer(rebasing: $0[..<received]), handshake, in: multi)
                }
            }
        }

        /// Bytes of the answer: head lines, then (not a `101`) its body.
        private func take(
            _ bytes: UnsafeRawBufferPointer, _ handshake: CurlHandshake, in multi: OpaquePointer
        ) {
            var index = 0
            while handshake.body == nil, index < bytes.count {
                let byte = bytes[index]
                index += 1
                handshake.line.append(byte)
                handshake.headBytes += 1
                guard handshake.headBytes <= CurlHandshake.headLimit else {
                    failure = .transport(
                        underlying: ResponseFraming.error(reason: "a head past 100 KiB"), context: context)
                    return endHandshake(result: 0, in: multi)
                }
                guard byte == 0x0A else { continue }
                let accepted = handshake.line.withUnsafeBytes { receivedHeader($0) }
                handshake.line.removeAll(keepingCapacity: true)
                guard accepted else { return endHandshake(result: 0, in: multi) }
                guard let head else { continue }
                if head.statusCode == 101 {
                    return upgrade(
                        head, leftover: UnsafeRawBufferPointer(rebasing: bytes[index...]), in: multi)
                }
                handshake.body = bodyFraming()
            }
            guard let body = handshake.body else { return }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
            switch body {
            case .length(let remaining):
                let count = Int(min(Int64(rest.count), remaining))
                if count > 0, received(UnsafeRawBufferPointer(rebasing: rest[..<count])) == .stop {
                    return endHandshake(result: 0, in: multi)
                }
                handshake.body = .length(remaining: remaining - Int64(count))
                if remaining == Int64(count) { endHandshake(result: 0, in: multi) }
            case .chunked(var decoder):
                var stopped = false
                do {
                    _ = try decoder.take(rest) { data in
                        if !stopped, received(data) == .stop { stopped = true }
                    }
                } catch {
                    failure = .transport(
                        underlying: ResponseFraming.error(reason: "\(error)"), context: context)
                    return endHandshake(result: 0, in: multi)
                }
                handshake.body = .chunked(decoder)
                if stopped || decoder.isComplete { endHandshake(result: 0, in: multi) }
            case .untilClose:
                if !rest.isEmpty, received(rest) == .stop { endHandshake(result: 0, in: multi) }
            }
        }

        /// How the body of the head just read ends.
        private func bodyFraming() -> CurlHandshake.Body {
            if let bodyLength { return .length(remaining: bodyLength) }
            let codings = headReader.values(of: "Transfer-Encoding").flatMap { $0.split(separator: ",") }
            if let last = codings.last, last.trimmingCharacters(in: .whitespaces).lowercased() == "chunked" {
                return .chunked(ChunkedBodyDecoder())
            }
            return .untilClose
        }

        /// The server closed the connection: the end of a body read until then, else a failure
        /// (``finish(result:in:)`` sees a head or a body cut short).
        private func connectionClosed(_ handshake: CurlHandshake, in multi: OpaquePointer) {
            switch handshake.body {
            case .untilClose, .length:
                endHandshake(result: 0, in: multi)
            case .chunked, nil:
                if head != nil {
                    failure = .transport(underlying: URLError(.networkConnectionLost), context: context)
                }
                // CURLE_GOT_NOTHING when not even a head came.
                endHandshake(result: head == nil ? 52 : 0, in: multi)
            }
        }

        /// The answer was not a `101` (or the handshake failed): the connection closes, and the
        /// hop ends like any other (delivered, followed or failed).
        private func endHandshake(result: Int32, in multi: OpaquePointer) {
            guard let handshake else { return }
            self.handshake = nil
            loop?.forgetChannel(handshake.socket)
            loop?.release(self)
            ccurl_multi_remove_handle(multi, handle)
            finish(result: result, in: multi)
        }

        /// A `101`: the sink checks it and takes the connection, and the response is delivered.
        private func upgrade(
            _ head: CurlResponseHead, leftover: UnsafeRawBufferPointer, in multi: OpaquePointer
        ) {
            guard let handshake, let sink = upgradeSink, let response, let loop else { return }
            self.handshake = nil
            loop.release(self)
            let metrics = measure(redirects: redirects)
            let channel = CurlChannel(
                handle: handle, socket: handshake.socket, loop: loop, leftover: Array(leftover),
                transport: transport)
            transport = nil
            do {
                try sink.upgraded(response, request: request, connection: channel)
            } catch {
                loop.forgetChannel(handshake.socket)
                ccurl_multi_remove_handle(multi, handle)
                return fail(error as? APIError ?? .transport(underlying: error, context: context))
            }
            handOffHandle()
            loop.watchChannel(handshake.socket, owner: channel, events: 0)
            deliver(head, metrics: metrics)
        }
    }
#endif
