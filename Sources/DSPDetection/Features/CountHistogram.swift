/// Quantiles of integer-count histograms, shared by the estimators that keep one
/// (``ReverberationEstimator``'s decay rates and jumps, ``ProsodyEstimator``'s pitches).
enum CountHistogram {
    /// The fractional bin position of quantile `q` (0…1) of `counts`, whose counts sum to
    /// `total`: the index of the bin where the running count reaches `q · total`, plus the
    /// fraction of that bin's count needed (a bin's counts spread evenly over it); the bin
    /// count when the running count never reaches it. Never allocates.
    static func quantile(_ counts: UnsafeMutableBufferPointer<Int32>, _ q: Double, total: Int) -> Double {
        let target = q * Double(total)
        var cumulative = 0.0
        for i in 0..<counts.count {
            let c = Double(counts[i])
            if c > 0, cumulative + c >= target { return Double(i) + (target - cumulative) / c }
            cumulative += c
        }
        return Double(counts.count)
    }
}
