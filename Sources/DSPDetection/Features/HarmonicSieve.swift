internal import CDSPKernels
import DSPCore
import DSPSpectral

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the two strongest simultaneous pitches of a frame by harmonic sieving with
/// cancellation (after Klapuri 2003).
///
/// From the power spectrum it forms a peak spectrum `S[k] = max(0, L[k] − L̄[k])`: the level in
/// dB above its local mean over ±120 Hz, which keeps harmonic peaks and flattens formants and
/// noise. A candidate `f0` (70–400 Hz, 1/24-octave grid) scores the mean of `S` at its first
/// 15 harmonics below 3 kHz (the largest of the three nearest bins), minus the mean at the
/// points half-way between them (which rejects `2·f0`). Between candidates scoring within 15 %
/// of the best, the highest wins (which rejects `f0/2`). The winner's harmonics (±1 bin) are
/// then removed and the sieve run again, skipping candidates near simple ratios of the first
/// pitch (1/3, 1/2, 2/3, 1, 3/2, 2, 3: those share most harmonics). The second score relative
/// to the first is the second-pitch salience: one voice leaves little but noise behind, two
/// voices leave a second comb.
final class HarmonicSieve {
    struct Result {
        var first: Float
        var second: Float
        var ratio: Float
    }

    /// The candidate tables of one sieve layout, built once per layout (``cache``) and read,
    /// never written, by every sieve with that layout on any number of threads.
    final class Tables: @unchecked Sendable {
        /// What fixes the tables: ``HarmonicSieve/init(binCount:binHz:minimumPitchHz:maximumPitchHz:maximumHarmonicHz:maximumHarmonics:)``'s arguments.
        struct Key: Hashable, Sendable {
            var binCount: Int
            var binHz: Float
            var minimumPitchHz: Float
            var maximumPitchHz: Float
            var maximumHarmonicHz: Float
            var maximumHarmonics: Int
        }

        /// The tables of every layout in use.
        static let cache = SharedTableCache<Key, Tables>()

        let topBin: Int
        let halfWidth: Int
        let steps: Int
        let candidates: UnsafeMutableBufferPointer<Float>
        /// Candidates per group of the score sums (`cdsp_sieve_sums`: one lane each).
        static let groupLanes = 16
        /// Groups of ``groupLanes`` candidates: ``steps`` rounded up.
        let groups: Int
        /// The most harmonics of any candidate: the rows per group in the grids below.
        let depthStride: Int
        /// Each lane's harmonic count (`16·g + l`; 0 past ``steps``).
        let laneCounts: UnsafeMutableBufferPointer<UInt8>
        /// Candidate `c = 16·g + l`'s harmonic bins (the bin of `h·f0`, `h = 1, 2, …`) at
        /// `(g·depthStride + i)·16 + l`, `i = h − 1`; past its last harmonic, bin 0 (never read).
        let harmonicGrid: UnsafeMutableBufferPointer<Int32>
        /// The bins half-way below them (`(h − 0.5)·f0`), laid out as ``harmonicGrid``.
        let halfGrid: UnsafeMutableBufferPointer<Int32>
        /// Per row `r = g·depthStride + i`: the lowest harmonic bin and the lowest half-way bin
        /// of the row's candidates that have an `i`-th harmonic (`2r`, `2r + 1`); nil unless
        /// every row's bins lie within 64 of them and those 64 bins lie within ``Key/binCount``
        /// (then `cdsp_sieve_sums` looks rows up in registers at level avx512).
        let windowBases: UnsafeMutableBufferPointer<Int32>?
        /// Per row: bit 0 set where its harmonic bins lie within 32 of their window's base, bit 1
        /// where its half-way bins do (one register permute instead of two at level avx512).
        let narrowRows: UnsafeMutableBufferPointer<UInt8>
        /// Each candidate's harmonic count as a float (1 for a candidate without harmonics, whose
        /// sums are 0: its score is then 0), the divisor of its score; ``steps`` rounded up to
        /// eight, the padding 1.
        let harmonicCounts: UnsafeMutableBufferPointer<Float>
        /// The bins whose ±1 neighbourhoods cancel candidate c as the first pitch, back to back:
        /// `cancelOffsets[c]..<cancelOffsets[c+1]` (the harmonics `h·f0` up to ``topBin``,
        /// rounded, as the cancellation computed them per frame).
        let cancelBins: UnsafeMutableBufferPointer<Int32>
        let cancelOffsets: UnsafeMutableBufferPointer<Int>

        /// Builds the tables of `key`.
        init(_ key: Key) {
            let binHz = key.binHz
            halfWidth = max(2, Int((120 / binHz).rounded()))
            topBin = min(key.binCount - 2 - halfWidth, Int(key.maximumHarmonicHz / binHz))
            let steps = Int((24 * log2(Double(key.maximumPitchHz / key.minimumPitchHz))).rounded(.down)) + 1
            self.steps = steps
            candidates = .allocate(capacity: steps)
            var bins: [[Int32]] = []
            var halves: [[Int32]] = []
            for c in 0..<steps {
                let f0 = Float(Double(key.minimumPitchHz) * exp2(Double(c) / 24))
                candidates[c] = f0
                var on: [Int32] = [], half: [Int32] = []
                var h: Float = 1
                while h * f0 / binHz <= Float(topBin - 1), Int(h) <= key.maximumHarmonics {
                    on.append(Int32((h * f0 / binHz).rounded()))
                    half.append(Int32(((h - 0.5) * f0 / binHz).rounded()))
                    h += 1
                }
                bins.append(on)
                halves.append(half)
            }
            let top = topBin
            precondition(
                bins.joined().allSatisfy { $0 >= 1 && Int($0) < top } && halves.joined().allSatisfy { $0 >= 0 && Int($0) < top },
                "HarmonicSieve: a harmonic bin outside 1..<topBin")
            let lanes = Self.groupLanes
            groups = (steps + lanes - 1) / lanes
            depthStride = max(1, bins.map(\.count).max() ?? 0)
            precondition(depthStride <= Int(UInt8.max), "HarmonicSieve: too many harmonics per candidate")
            laneCounts = .allocate(capacity: max(1, groups * lanes))
            laneCounts.initialize(repeating: 0)
            for c in 0..<steps { laneCounts[c] = UInt8(bins[c].count) }
            harmonicGrid = .allocate(capacity: max(1, groups * depthStride * lanes))
            halfGrid = .allocate(capacity: max(1, groups * depthStride * lanes))
            harmonicGrid.initialize(repeating: 0)
            halfGrid.initialize(repeating: 0)
            for g in 0..<groups {
                for c in (g * lanes)..<min(steps, (g + 1) * lanes) {
                    for i in bins[c].indices {
                        harmonicGrid[(g * depthStride + i) * lanes + c - g * lanes] = bins[c][i]
                        halfGrid[(g * depthStride + i) * lanes + c - g * lanes] = halves[c][i]
                    }
                }
            }
            let rows = groups * depthStride
            narrowRows = .allocate(capacity: max(1, rows))
            narrowRows.initialize(repeating: 0)
            var bases = [Int32](repeating: 0, count: 2 * rows)
            var windowed = true
            for g in 0..<groups {
                for i in 0..<depthStride {
                    let members = ((g * lanes)..<min(steps, (g + 1) * lanes)).filter { i < bins[$0].count }
                    guard let low = members.map({ bins[$0][i] }).min(), let high = members.map({ bins[$0][i] }).max(),
                        let lowHalf = members.map({ halves[$0][i] }).min(), let highHalf = members.map({ halves[$0][i] }).max()
                    else { continue }
                    bases[2 * (g * depthStride + i)] = low
                    bases[2 * (g * depthStride + i) + 1] = lowHalf
                    narrowRows[g * depthStride + i] = (high - low < 32 ? 1 : 0) | (highHalf - lowHalf < 32 ? 2 : 0)
                    if high - low >= 64 || highHalf - lowHalf >= 64 || Int(max(low, lowHalf)) + 64 > key.binCount {
                        windowed = false
                    }
                }
            }
            if windowed {
                let b = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, bases.count))
                _ = b.initialize(from: bases)
                windowBases = b
            } else {
                windowBases = nil
            }
            harmonicCounts = .allocate(capacity: (steps + 7) / 8 * 8)
            harmonicCounts.initialize(repeating: 1)
            for c in 0..<steps where !bins[c].isEmpty { harmonicCounts[c] = Float(bins[c].count) }
            var cancels: [Int32] = []
            cancelOffsets = .allocate(capacity: steps + 1)
            for c in 0..<steps {
                cancelOffsets[c] = cancels.count
                let f1 = candidates[c]
                var h: Float = 1
                while h * f1 / binHz <= Float(topBin) {
                    cancels.append(Int32((h * f1 / binHz).rounded()))
                    h += 1
                }
            }
            cancelOffsets[steps] = cancels.count
            cancelBins = .allocate(capacity: max(1, cancels.count))
            for (i, b) in cancels.enumerated() { cancelBins[i] = b }
        }

        deinit {
            candidates.deallocate(); laneCounts.deallocate(); harmonicGrid.deallocate()
            halfGrid.deallocate(); harmonicCounts.deallocate(); cancelBins.deallocate(); cancelOffsets.deallocate()
            windowBases?.deallocate(); narrowRows.deallocate()
        }

        /// Bytes of the tables.
        var allocatedBytes: Int {
            MemoryFootprint.bytes(candidates) + MemoryFootprint.bytes(harmonicGrid)
                + MemoryFootprint.bytes(halfGrid) + MemoryFootprint.bytes(laneCounts)
                + (windowBases.map { MemoryFootprint.bytes($0) } ?? 0) + MemoryFootprint.bytes(narrowRows)
                + MemoryFootprint.bytes(harmonicCounts) + MemoryFootprint.bytes(cancelBins)
                + MemoryFootprint.bytes(cancelOffsets)
        }
    }

    private let binHz: Float
    private let binCount: Int
    /// This layout's shared tables; the fields below are read from them.
    private let tables: Tables
    private let topBin: Int
    private let halfWidth: Int
    private let steps: Int
    private let candidates: UnsafeMutableBufferPointer<Float>
    private let harmonicCounts: UnsafeMutableBufferPointer<Float>
    /// The process's workspace key: a frame's buffers (``Scratch``) come from the calling
    /// thread's workspace.
    private let workspace = ScratchWorkspace()

    /// One frame's buffers, all written before they are read in ``analyze(_:)``; `scores` holds
    /// a sum per lane of every group (``steps`` rounded up to sixteen).
    private struct Scratch {
        /// Levels (dB) and their running sum.
        let levels: UnsafeMutablePointer<Float>
        let prefix: UnsafeMutablePointer<Float>
        let peaks: UnsafeMutablePointer<Float>
        /// `max(peaks[k − 1], peaks[k], peaks[k + 1])`: the largest of the three nearest bins,
        /// formed once per sieve pass rather than once per candidate harmonic.
        let nearMax: UnsafeMutablePointer<Float>
        let scores: UnsafeMutablePointer<Float>
    }

    /// Bytes a frame takes from the workspace: levels, peaks and near maxima per bin, the
    /// running sum, a score per candidate.
    var workspaceBytes: Int {
        3 * ScratchWorkspace.bytes(Float.self, binCount) + ScratchWorkspace.bytes(Float.self, binCount + 1)
            + ScratchWorkspace.bytes(Float.self, scoreCount)
    }

    /// The scores' count: every lane of every group.
    private var scoreCount: Int { tables.groups * Tables.groupLanes }

    /// A sieve over `binCount`-bin power spectra of `binHz` per bin; its candidate tables are
    /// shared with every sieve of the same layout.
    init(binCount: Int, binHz: Float, minimumPitchHz: Float = 70, maximumPitchHz: Float = 400, maximumHarmonicHz: Float = 3000, maximumHarmonics: Int = 15) {
        self.binHz = binHz
        self.binCount = binCount
        let key = Tables.Key(
            binCount: binCount, binHz: binHz, minimumPitchHz: minimumPitchHz, maximumPitchHz: maximumPitchHz,
            maximumHarmonicHz: maximumHarmonicHz, maximumHarmonics: maximumHarmonics)
        tables = Tables.cache.table(for: key) { Tables(key) }
        topBin = tables.topBin
        halfWidth = tables.halfWidth
        steps = tables.steps
        candidates = tables.candidates
        harmonicCounts = tables.harmonicCounts
    }

    /// The two pitches of the frame whose power spectrum is `power` (``binCount`` values). Its
    /// buffers come from the calling thread's workspace, above any the caller holds.
    func analyze(_ power: UnsafeBufferPointer<Float>) -> Result {
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        let scratch = Scratch(
            levels: scope.take(Float.self, count: binCount), prefix: scope.take(Float.self, count: binCount + 1),
            peaks: scope.take(Float.self, count: binCount), nearMax: scope.take(Float.self, count: binCount),
            scores: scope.take(Float.self, count: scoreCount))
        let levels = scratch.levels, prefix = scratch.prefix, peaks = scratch.peaks
        // The bins past those the sieve writes, up to the last a 64-bin window of the score
        // kernel can load (no look-up selects them), and the near maxima's first and last bins
        // (never looked up), so nothing unwritten is read.
        let tail = min(binCount, topBin + 65)
        UnsafeMutableBufferPointer(start: scratch.nearMax + topBin, count: tail - topBin).update(repeating: 0)
        UnsafeMutableBufferPointer(start: peaks + topBin + 1, count: tail - topBin - 1).update(repeating: 0)
        scratch.nearMax[0] = 0
        let end = topBin + halfWidth + 1
        // Levels eight bins at a time (the same polynomial as the scalar tail, so the same
        // values) and their running sum in order, in one loop: the next eight levels are
        // computed while the sum's sequential adds run.
        var k = 0
        let floor = SIMD8<Float>(repeating: 1e-12)
        var running: Float = 0
        prefix[0] = 0
        while k + 8 <= end {
            let p = UnsafeRawPointer(power.baseAddress! + k).loadUnaligned(as: SIMD8<Float>.self)
            let l = FastLog.decibels(p + floor)
            UnsafeMutableRawPointer(levels + k).storeBytes(of: l, as: SIMD8<Float>.self)
            for j in 0..<8 {
                running += l[j]
                prefix[k + j + 1] = running
            }
            k += 8
        }
        while k < end {
            levels[k] = FastLog.decibels(power[k] + 1e-12)
            running += levels[k]
            prefix[k + 1] = running
            k += 1
        }
        // Peaks: the edges one bin at a time; between them, where every window is whole
        // (`2·halfWidth + 1` bins), eight bins at a time with the same operations per lane
        // (`max(0, v)` as Swift's `max` picks: `v` when `v >= 0`).
        let inner = min(topBin + 1, end - halfWidth)   // bins with k + halfWidth + 1 ≤ end below
        k = 0
        while k < min(halfWidth, topBin + 1) {
            peaks[k] = Self.peak(k, halfWidth, end, levels, prefix)
            k += 1
        }
        let width = SIMD8<Float>(repeating: Float(2 * halfWidth + 1))
        while k + 8 <= inner {
            let upper = UnsafeRawPointer(prefix + k + halfWidth + 1).loadUnaligned(as: SIMD8<Float>.self)
            let lower = UnsafeRawPointer(prefix + k - halfWidth).loadUnaligned(as: SIMD8<Float>.self)
            let l = UnsafeRawPointer(levels + k).loadUnaligned(as: SIMD8<Float>.self)
            let v = l - (upper - lower) / width
            let p = SIMD8<Float>.zero.replacing(with: v, where: v .>= 0)
            UnsafeMutableRawPointer(peaks + k).storeBytes(of: p, as: SIMD8<Float>.self)
            k += 8
        }
        while k < topBin + 1 {
            peaks[k] = Self.peak(k, halfWidth, end, levels, prefix)
            k += 1
        }
        let (firstIndex, firstScore) = best(excludingRatiosOf: nil, scratch)
        guard firstIndex >= 0, firstScore > 1 else { return Result(first: 0, second: 0, ratio: 0) }
        let f1 = candidates[firstIndex]
        let firstCandidate = firstIndex
        // Cancel the first pitch's harmonics (their bins from the shared table).
        for i in tables.cancelOffsets[firstIndex]..<tables.cancelOffsets[firstIndex + 1] {
            let b = Int(tables.cancelBins[i])
            for k in max(0, b - 1)...min(topBin, b + 1) { peaks[k] = 0 }
        }
        let (secondIndex, secondScore) = best(excludingRatiosOf: firstCandidate, scratch)
        guard secondIndex >= 0, secondScore > 0 else { return Result(first: f1, second: 0, ratio: 0) }
        return Result(first: f1, second: candidates[secondIndex], ratio: min(1, secondScore / firstScore))
    }

    /// Bin `k`'s level above the mean level over `k ± halfWidth` (clipped to `0 ..< end`), or 0.
    @inline(__always)
    private static func peak(
        _ k: Int, _ halfWidth: Int, _ end: Int, _ levels: UnsafeMutablePointer<Float>,
        _ prefix: UnsafeMutablePointer<Float>
    ) -> Float {
        let lo = max(0, k - halfWidth), hi = min(end, k + halfWidth + 1)
        let localMean = (prefix[hi] - prefix[lo]) / Float(hi - lo)
        return max(0, levels[k] - localMean)
    }

    /// `pitch`: the candidate index of the first pitch, whose simple ratios are skipped.
    ///
    /// The near maxima eight bins at a time (each lane Swift's `max` picks: the bits of the
    /// scalar loop); every candidate's score before its division by the harmonic count — the sum
    /// of the near maxima at its harmonics less the sum of the peaks half-way between them, each
    /// in harmonic order (0 without harmonics) — by `cdsp_sieve_sums`, sixteen candidates at a
    /// time; then their divisions eight at a time (a division rounds the same in any lane), then
    /// the search for the best: the scores of one candidate at a time.
    private func best(excludingRatiosOf pitch: Int?, _ scratch: Scratch) -> (Int, Float) {
        let nearMax = scratch.nearMax, peaks = scratch.peaks, scores = scratch.scores
        // max(a, b) is `b >= a ? b : a`.
        var k = 1
        while k + 8 <= topBin {
            let below = UnsafeRawPointer(peaks + k - 1).loadUnaligned(as: SIMD8<Float>.self)
            let here = UnsafeRawPointer(peaks + k).loadUnaligned(as: SIMD8<Float>.self)
            let above = UnsafeRawPointer(peaks + k + 1).loadUnaligned(as: SIMD8<Float>.self)
            let side = below.replacing(with: above, where: above .>= below)
            let m = here.replacing(with: side, where: side .>= here)
            UnsafeMutableRawPointer(nearMax + k).storeBytes(of: m, as: SIMD8<Float>.self)
            k += 8
        }
        while k < topBin {
            nearMax[k] = max(peaks[k], max(peaks[k - 1], peaks[k + 1]))
            k += 1
        }
        let count = steps
        cdsp_sieve_sums(
            nearMax, peaks, tables.harmonicGrid.baseAddress!, tables.halfGrid.baseAddress!,
            tables.laneCounts.baseAddress!, tables.groups, tables.depthStride, tables.windowBases?.baseAddress,
            tables.windowBases == nil ? nil : tables.narrowRows.baseAddress, scores)
        var c = count
        while c & 7 != 0 { scores[c] = 0; c += 1 }   // the padding, divided by 1 below
        let counts = harmonicCounts.baseAddress!
        c = 0
        while c < count {
            let sums = UnsafeRawPointer(scores + c).loadUnaligned(as: SIMD8<Float>.self)
            let n = UnsafeRawPointer(counts + c).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(scores + c).storeBytes(of: sums / n, as: SIMD8<Float>.self)
            c += 8
        }
        if let pitch { Self.excludeSimpleRatios(of: pitch, scores, count) }
        // The first candidate with the highest score over 0 (-1 if none): the largest score
        // eight lanes at a time (a lane takes a value only where it is greater, as the scalar
        // scan does, so a NaN never wins), then the first candidate that holds it.
        var lanes = SIMD8<Float>(repeating: 0)
        c = 0
        while c < count {
            let v = UnsafeRawPointer(scores + c).loadUnaligned(as: SIMD8<Float>.self)
            lanes.replace(with: v, where: v .> lanes)
            c += 8
        }
        let bestScore = lanes.max()
        guard bestScore > 0 else { return (-1, 0) }
        var bestIndex = 0
        while scores[bestIndex] != bestScore { bestIndex += 1 }
        // Prefer a candidate an octave or more above scoring close to the best (rejects
        // sub-octaves, which hit the same harmonics plus empty bins).
        var chosen = bestIndex
        for c in stride(from: count - 1, to: bestIndex + 20, by: -1) where scores[c] >= 0.85 * bestScore {
            chosen = c
            break
        }
        return (chosen, scores[chosen])
    }

    /// Sets to −∞ the scores of the candidates `0 ..< count` that stand within ±1.4 steps (±4 %;
    /// a step is 1/24 octave) of a simple ratio of candidate `pitch`: 1 (0), 3/2 and 2/3
    /// (±14.04), 2 and 1/2 (±24), 3 and 1/3 (±38.04). Ranges only: nothing is allocated.
    @inline(__always)
    private static func excludeSimpleRatios(of pitch: Int, _ scores: UnsafeMutablePointer<Float>, _ count: Int) {
        @inline(__always) func exclude(_ low: Int, _ high: Int) {
            let from = max(0, low), to = min(count - 1, high)
            if from <= to { for c in from...to { scores[c] = -.infinity } }
        }
        exclude(pitch - 1, pitch + 1)
        exclude(pitch + 13, pitch + 15); exclude(pitch - 15, pitch - 13)
        exclude(pitch + 23, pitch + 25); exclude(pitch - 25, pitch - 23)
        exclude(pitch + 37, pitch + 39); exclude(pitch - 39, pitch - 37)
    }
}


extension HarmonicSieve: MemoryAccounting {
    /// Candidate tables (harmonic and half bins, offsets, candidates), shared per layout; a frame's buffers
    /// (levels, running sum, peaks, near maxima, scores), from the thread's workspace.
    var memoryFootprint: MemoryFootprint {
        MemoryFootprint(sharedBytes: tables.allocatedBytes, workspaceBytes: workspaceBytes)
    }
}
