import Dispatch
import Foundation

/// Times workloads as medians over several runs, and prints each as a ratio to a baseline
/// measured in the same process: absolute numbers on a shared 2-core machine swing 2–5×.
struct Measurement {
    let repetitions: Int

    /// Runs `body` `repetitions` times after one warm-up run; returns the median in seconds.
    func median(_ body: () throws -> Void) rethrows -> Double {
        try body()
        var samples: [Double] = []
        for _ in 0..<repetitions {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}

/// One printed comparison.
struct Comparison {
    var workload: String
    var operations: Int
    var baselineName: String
    var baseline: Double
    var measured: Double
    var target: Double?

    var ratio: Double { measured / baseline }

    func report() -> String {
        let perOperation = measured / Double(operations) * 1e9
        let basePerOperation = baseline / Double(operations) * 1e9
        var line = String(
            format: "%@  median %.1f ms (%.0f ns/op)  vs %@ %.1f ms (%.0f ns/op)  ratio %.2f",
            workload, measured * 1000, perOperation, baselineName, baseline * 1000, basePerOperation, ratio
        )
        if let target { line += String(format: "  (target <= %.2f)", target) }
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
