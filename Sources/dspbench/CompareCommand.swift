// dspbench compare BASE.json NEW.json: flag kernels whose × real time dropped beyond a threshold.
import ArgumentParser
import CLISupport
import Foundation
import Logging

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two `dspbench run --json` results; exit 1 if a SpeechDSP kernel regressed.",
        discussion: """
            Kernels are matched by id. A SpeechDSP kernel regresses when its × real time (CPU) \
            drops by more than --threshold. Peer kernels are shown for context — they tell \
            how much the machine itself drifted — and never fail the comparison.
            """)

    @Argument(help: "The baseline result (dspbench run --json).")
    var base: String

    @Argument(help: "The new result.")
    var new: String

    @Option(help: "Largest tolerated drop in × real time, e.g. 10% (a bare number is a percentage).")
    var threshold: Percentage = Percentage(10)

    @Flag(help: "Write the comparison as one JSON document instead of a table.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = logging.bootstrap(label: "dspbench")
        let baseReport: RunReport
        let newReport: RunReport
        do {
            baseReport = try JSONOutput.decode(RunReport.self, from: base)
            newReport = try JSONOutput.decode(RunReport.self, from: new)
        } catch {
            logger.error("cannot read the results: \(error)")
            throw ExitCode(2)
        }
        let comparison = Comparison(base: baseReport, new: newReport, thresholdPercent: threshold.value)
        for warning in comparison.warnings { logger.warning("\(warning)") }
        print(json ? try JSONOutput.encode(comparison) : comparison.renderTable())
        if comparison.regressions > 0 {
            logger.error("\(comparison.regressions) SpeechDSP kernel(s) regressed by more than \(threshold.text)")
            throw ExitCode(1)
        }
    }
}

/// A percentage given as `10%`, `10` or `2.5%`.
struct Percentage: ExpressibleByArgument {
    var value: Double

    init(_ value: Double) { self.value = value }

    init?(argument: String) {
        let trimmed = argument.hasSuffix("%") ? String(argument.dropLast()) : argument
        guard let value = Double(trimmed), value >= 0, value.isFinite else { return nil }
        self.value = value
    }

    var text: String { String(format: "%g%%", value) }
    var defaultValueDescription: String { text }
}

/// Two runs side by side.
struct Comparison: Encodable {
    enum Status: String, Encodable {
        /// Within the threshold.
        case ok
        /// A SpeechDSP kernel slower by more than the threshold.
        case regression
        /// A SpeechDSP kernel faster by more than the threshold.
        case faster
        /// A peer kernel (context only).
        case peer
        /// Only in the new run.
        case new
        /// Only in the base run.
        case missing
        /// Failed in either run.
        case failed
    }

    struct Row: Encodable {
        var id: String
        var isSpeechDSP: Bool
        var baseXRealtime: Double?
        var newXRealtime: Double?
        /// new ÷ base − 1, in percent.
        var changePercent: Double?
        var baseP99Ns: Double?
        var newP99Ns: Double?
        var status: Status

        enum CodingKeys: String, CodingKey {
            case id, isSpeechDSP = "is_speechdsp", baseXRealtime = "base_x_realtime", newXRealtime = "new_x_realtime"
            case changePercent = "change_percent", baseP99Ns = "base_ns_per_frame_p99", newP99Ns = "new_ns_per_frame_p99"
            case status
        }
    }

    var schema = "dspbench.compare/1"
    var base: String
    var new: String
    var thresholdPercent: Double
    var rows: [Row] = []
    var regressions = 0
    /// Median change of the peer kernels, percent: how much the machine drifted.
    var peerMedianChangePercent: Double?
    var warnings: [String] = []

    enum CodingKeys: String, CodingKey {
        case schema, base, new, thresholdPercent = "threshold_percent", rows, regressions
        case peerMedianChangePercent = "peer_median_change_percent", warnings
    }

    init(base: RunReport, new: RunReport, thresholdPercent: Double) {
        self.base = "\(base.date) \(base.commandLine)"
        self.new = "\(new.date) \(new.commandLine)"
        self.thresholdPercent = thresholdPercent
        if base.machine.cpuModel != new.machine.cpuModel || base.machine.logicalCores != new.machine.logicalCores {
            warnings.append("different machines: \(base.machine.cpuModel) vs \(new.machine.cpuModel)")
        }
        if base.machine.kernelDispatch != new.machine.kernelDispatch {
            warnings.append("different C kernel levels: \(base.machine.kernelDispatch ?? "not recorded") vs \(new.machine.kernelDispatch ?? "not recorded")")
        }
        if base.buildConfiguration != new.buildConfiguration {
            warnings.append("different builds: \(base.buildConfiguration) vs \(new.buildConfiguration)")
        }
        if base.settings.frameLength != new.settings.frameLength || base.settings.sampleRate != new.settings.sampleRate {
            warnings.append("different settings: frame \(base.settings.frameLength)/\(new.settings.frameLength), rate \(base.settings.sampleRate)/\(new.settings.sampleRate)")
        }
        let baseByID = Dictionary(base.kernels.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newIDs = Set(new.kernels.map(\.id))
        var peerChanges: [Double] = []
        for kernel in new.kernels {
            guard let old = baseByID[kernel.id] else {
                rows.append(Row(id: kernel.id, isSpeechDSP: kernel.isSpeechDSP, newXRealtime: kernel.xRealtime,
                                newP99Ns: kernel.nsPerFrameP99, status: .new))
                continue
            }
            var row = Row(
                id: kernel.id, isSpeechDSP: kernel.isSpeechDSP, baseXRealtime: old.xRealtime, newXRealtime: kernel.xRealtime,
                baseP99Ns: old.nsPerFrameP99, newP99Ns: kernel.nsPerFrameP99, status: .ok)
            if let before = old.xRealtime, let after = kernel.xRealtime, before > 0, old.failure == nil, kernel.failure == nil {
                let change = (after / before - 1) * 100
                row.changePercent = change
                if !kernel.isSpeechDSP {
                    row.status = .peer
                    peerChanges.append(change)
                } else if change < -thresholdPercent {
                    row.status = .regression
                    regressions += 1
                } else if change > thresholdPercent {
                    row.status = .faster
                }
            } else {
                row.status = .failed
                if kernel.isSpeechDSP && kernel.failure != nil {
                    regressions += 1
                }
            }
            rows.append(row)
        }
        for kernel in base.kernels where !newIDs.contains(kernel.id) {
            rows.append(Row(id: kernel.id, isSpeechDSP: kernel.isSpeechDSP, baseXRealtime: kernel.xRealtime,
                            baseP99Ns: kernel.nsPerFrameP99, status: .missing))
        }
        if !peerChanges.isEmpty { peerMedianChangePercent = median(peerChanges) }
    }

    func renderTable() -> String {
        var table = TextTable([
            ("Kernel", .left), ("base ×RT", .right), ("new ×RT", .right), ("change", .right),
            ("base p99 ns", .right), ("new p99 ns", .right), ("status", .left),
        ])
        for row in rows {
            table.add([
                row.id, RunReport.speed(row.baseXRealtime), RunReport.speed(row.newXRealtime),
                row.changePercent.map { String(format: "%+.1f%%", $0) } ?? "",
                RunReport.nanoseconds(row.baseP99Ns), RunReport.nanoseconds(row.newP99Ns),
                row.status == .regression ? "REGRESSION" : row.status.rawValue,
            ])
        }
        var out = ["Base: \(base)", "New:  \(new)", String(format: "Threshold: −%g%% in × real time (SpeechDSP kernels)", thresholdPercent), "", table.render(), ""]
        if let drift = peerMedianChangePercent {
            out.append(String(format: "Peers moved by %+.1f%% (median): the machine's own drift between the runs.", drift))
        }
        out.append(regressions == 0 ? "No regression." : "\(regressions) regression(s).")
        for warning in warnings { out.append("Warning: \(warning)") }
        return out.joined(separator: "\n")
    }
}
