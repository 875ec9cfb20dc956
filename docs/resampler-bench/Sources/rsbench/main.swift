// Usage (from docs/resampler-bench, release build, default settings):
//   swift build -c release && .build/release/rsbench [runs=15] [seconds=60] [--all] [--48|--44] [--ours] [--info]
// 48 → 16 and 44.1 → 16 kHz, mono, uniform noise (LCG, seed 12345, ±0.5), 1024-sample pushes;
// (--rates=24000,22050: those input rates instead; --to=44100: that output rate instead of 16 kHz); SpeechDSP (`.default`, or every preset with --all) and libsoxr SOXR_HQ alternate, one warm-up
// each, then `runs` rounds; the best thread-CPU time of each is kept and the ratio printed
// (ours/soxr > 1: SpeechDSP faster). Construction is not timed. --info prints the designs.
import CBenchReferences
import DSPCore
import Glibc

func cpuNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}
let args = CommandLine.arguments
let runs = args.count > 1 ? Int(args[1])! : 15
let seconds = args.count > 2 ? Int(args[2])! : 60
let onlyOurs = args.contains("--ours")
let qualities: [Resampler.Quality] = args.contains("--all") ? Resampler.Quality.allCases : [.default]
let push = 1024
if args.contains("--info") {
    let pairs: [(Int, Int, Resampler.Quality)] = [(48_000, 16_000, .lowLatency), (44_100, 16_000, .lowLatency)]
        + [8_000, 11_025, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000].map { ($0, 16_000, Resampler.Quality.default) }
        + [(16_000, 48_000, .default), (16_000, 44_100, .default), (48_000, 16_000, .high), (44_100, 16_000, .high), (8_000, 16_000, .high), (384_000, 8_000, .default)]
    for (i, o, q) in pairs {
        do {
            let t0 = cpuNow()
            let r = try! Resampler(inputRate: i, outputRate: o, quality: q)
            let ms = Int(((cpuNow() - t0) * 1000).rounded())
            print(q, "\(i)→\(o)", "L/M \(r.interpolationFactor)/\(r.decimationFactor)", "hb", r.halfBandLength, "via", r.intermediateRate.map(String.init) ?? "-", "K", r.filterLength, "T", r.tapsPerPhase, "delay", r.outputDelay, "group ms", Double(Int(r.groupDelaySeconds * 100000)) / 100, r.designMethod, "init ms", ms)
        }
    }
    exit(0)
}
let listedRates = args.first { $0.hasPrefix("--rates=") }.map { $0.dropFirst(8).split(separator: ",").map { Int($0)! } }
let rates = listedRates ?? (args.contains("--48") ? [48_000] : args.contains("--44") ? [44_100] : [48_000, 44_100])
let outputRate = args.first { $0.hasPrefix("--to=") }.map { Int($0.dropFirst(5))! } ?? 16_000
for inputRate in rates {
    let count = inputRate * seconds
    let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
    var state: UInt32 = 12_345
    for i in 0..<count {
        state = state &* 1_664_525 &+ 1_013_904_223
        input[i] = 0.5 * Float(Int32(bitPattern: state)) * 0x1p-31
    }
    let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: 8192)
    var kernels: [(String, () -> Void)] = []
    for q in qualities {
        let r = try! Resampler(inputRate: inputRate, outputRate: outputRate, quality: q)
        kernels.append(("ours \(q)", {
            r.reset()
            var o = 0
            while o + push <= count {
                let res = r.process(UnsafeBufferPointer(rebasing: input[o..<o + push]), into: output)
                precondition(res.consumed == push)
                o += push
            }
        }))
    }
    if !onlyOurs {
        // Created once, outside the timing, like ours (soxr_create designs its filters: timing
        // it, as this harness did until 2026-11-23 23:45 UTC, charged soxr ~0.1 ms per run and
        // inflated ours/soxr by up to ~10 % for short inputs); each run starts from soxr_clear.
        let p = cbs_peer_resampler_create(CBS_PEER_SOXR, Int32(CBS_SOXR_HQ), UInt32(inputRate), UInt32(outputRate), 1, nil, 0)!
        kernels.append(("soxr HQ", {
            cbs_peer_resampler_reset(p)
            var o = 0
            while o + push <= count {
                _ = cbs_peer_resampler_process(p, input.baseAddress! + o, push, output.baseAddress, output.count)
                o += push
            }
        }))
    }
    var best = [Double](repeating: .infinity, count: kernels.count)
    for (_, k) in kernels { k() }  // warm-up
    for _ in 0..<runs {
        for (i, k) in kernels.enumerated() {
            let t0 = cpuNow(); k.1(); let t = cpuNow() - t0
            best[i] = min(best[i], t)
        }
    }
    let audio = Double(count / push * push) / Double(inputRate)
    func f(_ x: Double, _ d: Int) -> String {
        var m = 1.0
        for _ in 0..<d { m *= 10 }
        return String(Double((x * m).rounded()) / m)
    }
    for (i, k) in kernels.enumerated() {
        var line = "\(Double(inputRate) / 1000)→\(Double(outputRate) / 1000) \(k.0): best \(f(best[i], 4)) s, \(Int(audio / best[i]))× RT, \(f(best[i] / audio * Double(inputRate) * 1e9 / 1000, 3)) ns/in-sample"
        if !onlyOurs && i < kernels.count - 1 { line += ", ours/soxr " + f(best[best.count - 1] / best[i], 3) }
        print(line)
    }
}
