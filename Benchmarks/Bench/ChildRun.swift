import Foundation

/// A run of this executable in a child process (`osprey-bench --…-child …`), for a peak resident
/// memory of the run's own: the fields the child printed on its standard output.
enum ChildRun {
    /// Runs `osprey-bench ARGUMENTS`; its output's whitespace-separated fields, or nil when it
    /// failed (its output then goes to `failed`).
    static func fields(_ arguments: [String], failed: (String) -> Void = { _ in }) throws -> [Substring]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            failed(text)
            return nil
        }
        return text.split(whereSeparator: \.isWhitespace)
    }
}
