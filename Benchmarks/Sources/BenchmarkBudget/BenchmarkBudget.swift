// How long each benchmark runs. A timing needs its configured budget; CI's malloc-count check
// (`.ci/run`: `thresholds check --metric mallocCountTotal`) needs only a few iterations, since
// every measured call must allocate nothing, so it sets SPEECHDSP_BENCH_QUICK=1.
import Foundation

/// The run budget of a benchmark: as configured, or a few short iterations in quick mode.
public enum BenchmarkBudget {
    /// Whether `SPEECHDSP_BENCH_QUICK` is set (to anything but `0` or the empty string).
    public static let isQuick: Bool = {
        guard let value = ProcessInfo.processInfo.environment["SPEECHDSP_BENCH_QUICK"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// Iterations in quick mode: enough for the 90th percentile of a count to be a measured one.
    public static let quickIterations = 10

    /// The longest a benchmark runs: `configured`, or 250 ms in quick mode.
    public static func duration(_ configured: Duration) -> Duration {
        isQuick ? min(configured, .milliseconds(250)) : configured
    }

    /// The most iterations a benchmark runs: `configured`, or at most ``quickIterations``.
    public static func iterations(_ configured: Int) -> Int {
        isQuick ? min(configured, quickIterations) : configured
    }
}
