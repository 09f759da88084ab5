import Foundation

extension LoopbackServer.Response {
    /// The same response with its body gzip-encoded (`Content-Encoding: gzip`); the framing
    /// headers then describe the encoded bytes, as on a real server.
    public func gzipped() -> Self {
        var copy = self
        copy.body = Gzip.encode(body)
        copy.headers.append(LoopbackServer.HeaderField("Content-Encoding", "gzip"))
        return copy
    }

    /// A decompression bomb: a chunked `Content-Encoding: gzip` body of about
    /// `inflatedBytes / 1032` bytes that inflates to `inflatedBytes` zero bytes.
    public static func gzipBomb(inflatedBytes: Int, chunkSize: Int = 16 * 1024) -> Self {
        Self(
            headers: [
                LoopbackServer.HeaderField("Content-Type", "application/octet-stream"),
                LoopbackServer.HeaderField("Content-Encoding", "gzip"),
            ],
            body: Gzip.bomb(inflatedBytes: inflatedBytes)
        ).chunked(chunkSize: chunkSize)
    }
}
