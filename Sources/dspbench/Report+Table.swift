// `dspbench run` for a terminal: a header with the provenance, one row per kernel, notes.
import Foundation

extension RunReport {
    func renderTable() -> String {
        var out: [String] = []
        out.append("dspbench — SpeechDSP \(library.version) (\(buildConfiguration) build), \(date)")
        var cpu = "CPU: \(machine.cpuModel); \(machine.logicalCores) logical cores"
        if let physical = machine.physicalCores { cpu += " (\(physical) physical)" }
        out.append(cpu + "; flags: \(machine.cpuFlags.summary.isEmpty ? "none of interest" : machine.cpuFlags.summary)")
        out.append("OS: \(machine.operatingSystem); C kernels: \(machine.kernelDispatch ?? "not recorded")")
        out.append("Input: \(settings.input); pushes of \(settings.frameLength) samples; "
            + "\(settings.repetitions) timed passes after \(settings.warmupPasses) warm-up")
        out.append("Command: \(commandLine)")
        out.append("")

        // Per-analysis-frame columns only when an analysis was measured.
        let analyses = kernels.contains { $0.analysisFramesPerPass != nil }
        var columns: [(String, TextTable.Alignment)] = [
            ("Suite", .left), ("Kernel", .left), ("Implementation", .left), ("×RT", .right),
            ("p50 ns", .right), ("p99 ns", .right),
        ]
        if analyses { columns += [("hop p50 ns", .right), ("hop p99 ns", .right)] }
        columns += [("Msamples/s", .right), ("allocs/frame", .right), ("ours÷peer", .right)]
        var table = TextTable(columns)
        var lastSuite: Suite?
        for kernel in kernels {
            if let lastSuite, lastSuite != kernel.suite { table.addSeparator() }
            lastSuite = kernel.suite
            if let failure = kernel.failure {
                table.add([kernel.suite.rawValue, kernel.name, kernel.implementation, "failed: \(failure)"]
                    + Array(repeating: "", count: columns.count - 4))
                continue
            }
            var row = [
                kernel.suite.rawValue, kernel.name, kernel.implementation,
                Self.speed(kernel.xRealtime),
                Self.nanoseconds(kernel.nsPerFrameP50), Self.nanoseconds(kernel.nsPerFrameP99),
            ]
            if analyses {
                row += kernel.analysisFramesPerPass == nil
                    ? ["", ""]
                    : [Self.nanoseconds(kernel.nsPerAnalysisFrameP50), Self.nanoseconds(kernel.nsPerAnalysisFrameP99)]
            }
            row += [
                kernel.samplesPerSecond.map { String(format: "%.1f", $0 / 1e6) } ?? "–",
                Self.allocations(kernel.allocationsPerFrame),
                kernel.referenceRatio.map { String(format: "%.2f", $0) } ?? "",
            ]
            table.add(row)
        }
        out.append(table.render())
        out.append("")
        out.append("×RT: audio seconds per CPU second of this thread (median pass) = real-time streams per core.")
        out.append(String(format: "p50/p99: wall time of one push of a frame, less one clock read (%.0f ns here).", settings.clockOverheadNs))
        if analyses {
            out.append("hop p50/p99: the same per analysis frame (a 16 ms hop): each push's time shared among the hops it completed.")
        }
        let costs = kernels.compactMap(\.timingCostRatio).sorted()
        if let low = costs.first, let high = costs.last {
            out.append(String(
                format: "Timing every push (the p50/p99 passes) took %+.1f %% CPU over the ×RT passes (median kernel; %+.1f…%+.1f %%).",
                (median(costs) - 1) * 100, (low - 1) * 100, (high - 1) * 100))
        }
        if settings.allocationCounting {
            out.append("allocs/frame: malloc-family calls per push on the measuring thread (the CI proof is Benchmarks/).")
        } else {
            out.append("allocs/frame: not counted on this platform (needs Linux with glibc).")
        }
        if kernels.contains(where: { !$0.isSpeechDSP }) {
            out.append("ours÷peer: SpeechDSP ×RT ÷ the peer's (above 1: SpeechDSP is faster); resampling is against the `default` preset.")
        }
        for kernel in kernels {
            guard let relative = kernel.relativeTo,
                let other = kernels.first(where: { $0.id == relative.kernel })
            else { continue }
            let ratio = String(format: "%.3f× (%+.1f %%)", relative.cpuRatio, (relative.cpuRatio - 1) * 100)
            out.append("\(kernel.suite.rawValue): \(kernel.name) takes \(ratio) the CPU time of \(other.name), measured side by side.")
        }
        for note in notes { out.append("Note: \(note)") }
        return out.joined(separator: "\n")
    }

    static func speed(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    static func nanoseconds(_ value: Double?) -> String {
        guard let value else { return "–" }
        return String(format: "%.0f", value)
    }

    static func allocations(_ value: Double?) -> String {
        guard let value else { return "n/a" }
        return value == 0 ? "0" : String(format: "%.3g", value)
    }
}
