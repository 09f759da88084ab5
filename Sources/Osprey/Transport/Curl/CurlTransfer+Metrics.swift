#if canImport(CCurl)
    internal import CCurl
    import Foundation

    extension CurlTransfer {
        /// What libcurl measured of the hop that just finished (call before the handle is
        /// reset); nil when libcurl could not say.
        func measure(redirects: Int) -> RequestMetrics? {
            var measured = ccurl_metrics()
            guard ccurl_easy_metrics(handle, &measured) == 0 else { return nil }
            return RequestMetrics(measured, redirects: redirects)
        }
    }

    extension RequestMetrics {
        /// libcurl's points in time (microseconds since the start, each the end of a phase) made
        /// into the phases' durations. A reused connection had no lookup, connect or handshake:
        /// libcurl still reports the moments it skipped them, which are not durations.
        init(_ measured: ccurl_metrics, redirects: Int) {
            let reused = measured.new_connections == 0
            func seconds(_ microseconds: Int64) -> TimeInterval { Double(max(0, microseconds)) / 1e6 }
            self.init(
                domainLookup: reused ? nil : seconds(measured.name_lookup),
                connect: reused ? nil : seconds(measured.connect - measured.name_lookup),
                secureConnection: reused || measured.tls == 0
                    ? nil : seconds(measured.tls - measured.connect),
                firstByte: seconds(measured.first_byte),
                total: seconds(measured.total),
                bytesSent: Int64(measured.head_sent) + measured.body_sent,
                bytesReceived: Int64(measured.head_received) + measured.body_received,
                reusedConnection: reused,
                httpVersion: Self.curlVersionName(measured.http_version),
                redirects: redirects)
        }

        /// CURL_HTTP_VERSION_* as the protocol's name.
        private static func curlVersionName(_ version: Int) -> String? {
            switch version {
            case 1: "HTTP/1.0"
            case 2: "HTTP/1.1"
            case 3: "HTTP/2"
            case 30: "HTTP/3"
            default: nil
            }
        }
    }
#endif
