import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A POSIX call that failed, with its name and error number: what the loopback server's sockets
/// and the test suites' child processes throw.
package struct SystemCallFailure: Error, CustomStringConvertible {
    /// The call, as the message names it.
    package let call: String
    /// Its `errno` (or the error number it returned).
    package let code: Int32

    /// A failure of `call` with `code`.
    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    package var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
}
