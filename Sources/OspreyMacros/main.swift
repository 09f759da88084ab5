// Osprey's macro plugin: a loop that reads the compiler's requests on standard input and answers
// each on standard output, in frames of an 8-byte little-endian length then that many bytes of
// JSON. All parsing and code generation is OspreyMacroKit's; this file only moves frames.

import Foundation
import OspreyMacroKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The protocol version this plugin speaks: 7, the compiler's current one (`expandMacroResult`
/// for every kind of macro).
let protocolVersion = 7

// Frames go to private copies of the standard descriptors; file descriptor 1 then points at
// standard error, so that nothing printed by accident can corrupt the stream.
let input = FrameChannel.duplicate(STDIN_FILENO)
let output = FrameChannel.duplicate(STDOUT_FILENO)
_ = dup2(STDERR_FILENO, STDOUT_FILENO)

let decoder = JSONDecoder()
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]

while let frame = input.readFrame() {
    let answer: PluginMessage
    do {
        answer = PluginSession.answer(
            to: try decoder.decode(HostMessage.self, from: frame), version: protocolVersion)
    } catch {
        answer = .expandMacroResult(
            expandedSource: nil,
            diagnostics: [.unplaced("Osprey's macro plugin could not read the compiler's request: \(error)")]
        )
    }
    guard let data = try? encoder.encode(answer), output.writeFrame(data) else { break }
}
exit(0)
