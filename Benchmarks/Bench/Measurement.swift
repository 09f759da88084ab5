import Dispatch
import Foundation

/// Times workloads as medians over several runs, and prints each as a ratio to a baseline
/// measured in the same process: absolute numbers on a shared 2-core machine swing 2–5×.
struct Measurement {
    let repetitions: Int

    /// The medians of a baseline and a measured workload, and the ratio between them.
    struct Timings {
        var baseline: Double
        var measured: Double
        /// The median of the ratios of runs made back to back: steadier than the ratio of the
        /// two medians when the machine's speed drifts during the run.
        var ratio: Double
    }

    /// Runs each workload once to warm up, then `repetitions` times in alternation (baseline,
    /// measured, baseline, …), so that both see the same machine. Times are in seconds.
    func interleaved(baseline: () throws -> Void, measured: () throws -> Void) rethrows -> Timings {
        func time(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        try baseline()
        try measured()
        var pairs: [(baseline: Double, measured: Double)] = []
        for _ in 0..<repetitions {
            pairs.append((try time(baseline), try time(measured)))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Timings(
            baseline: median(pairs.map(\.baseline)),
            measured: median(pairs.map(\.measured)),
            ratio: median(pairs.map { $0.measured / $0.baseline })
        )
    }
}

/// One printed comparison.
struct Comparison {
    var workload: String
    var operations: Int
    var baselineName: String
    var timings: Measurement.Timings
    var target: Double?
    /// More to say on the line (CPU per request, connections opened).
    var note: String?

    var ratio: Double { timings.ratio }

    func report() -> String {
        let perOperation = timings.measured / Double(operations) * 1e9
        let basePerOperation = timings.baseline / Double(operations) * 1e9
        var line = String(
            format: "%@  median %.1f ms (%.0f ns/op)  vs %@ %.1f ms (%.0f ns/op)  ratio %.2f",
            workload, timings.measured * 1000, perOperation, baselineName, timings.baseline * 1000,
            basePerOperation, ratio
        )
        if let target { line += String(format: "  (target <= %.2f)", target) }
        if let note { line += "\n      " + note }
        return line
    }
}

/// A counter touched only on one serial queue, so it needs no lock (that is the point: the
/// baseline and the promise workloads do the same, minimal work per item).
final class SerialCounter: @unchecked Sendable {
    // @unchecked: only read and written on the serial queue that owns it, or after that queue
    // has drained (`sync {}`).
    var value = 0
}

/// Fails the benchmark run when a workload's exactly-once bookkeeping is off.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        print("CHECK FAILED: \(message())")
        exit(1)
    }
}
