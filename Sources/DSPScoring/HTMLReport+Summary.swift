import Foundation

/// A fixed-range histogram of one record field, for ``HTMLReport``.
///
/// Bins are half-open `[lowerBound + i·binWidth, lowerBound + (i+1)·binWidth)`, except the
/// last, which also takes its upper edge (so a ratio of exactly 1.0 lands in the top bin).
/// Values below the range are counted in the first bin and values above it in the last (each
/// also tallied in ``belowRange`` / ``aboveRange`` so the chart can say so); `null` values
/// (−∞ levels, unmeasured loudness) are counted in ``missing`` and in no bin.
public struct ReportHistogram: Equatable, Sendable {
    /// What is counted, e.g. `"RMS level"`.
    public let title: String
    /// The unit of the axis, e.g. `"dBFS"`.
    public let unit: String
    /// The left edge of the first bin.
    public let lowerBound: Double
    /// The width of every bin, in ``unit``.
    public let binWidth: Double
    /// Values per bin.
    public private(set) var counts: [Int]
    /// Values below ``lowerBound`` (included in bin 0).
    public private(set) var belowRange = 0
    /// Values above ``upperBound`` (included in the last bin).
    public private(set) var aboveRange = 0
    /// Records where the field was `null`.
    public private(set) var missing = 0

    /// Creates an empty histogram of `binCount` bins of `binWidth` from `lowerBound`.
    public init(title: String, unit: String, lowerBound: Double, binWidth: Double, binCount: Int) {
        precondition(binWidth > 0 && binCount > 0)
        self.title = title
        self.unit = unit
        self.lowerBound = lowerBound
        self.binWidth = binWidth
        counts = Array(repeating: 0, count: binCount)
    }

    /// The right edge of the last bin.
    public var upperBound: Double { lowerBound + Double(counts.count) * binWidth }

    /// Values counted in bins (excludes ``missing``).
    public var total: Int { counts.reduce(0, +) }

    /// The left edge of bin `index`.
    public func edge(_ index: Int) -> Double { lowerBound + Double(index) * binWidth }

    /// The bin a finite value falls in (clamped to the first and last bins).
    public func binIndex(for value: Double) -> Int {
        if value < lowerBound { return 0 }
        if value >= upperBound { return counts.count - 1 }
        return Swift.min(counts.count - 1, Swift.max(0, Int(((value - lowerBound) / binWidth).rounded(.down))))
    }

    /// Counts `value`; `nil` and non-finite values count as ``missing``.
    public mutating func add(_ value: Double?) {
        guard let value, value.isFinite else {
            missing += 1
            return
        }
        if value < lowerBound { belowRange += 1 }
        if value > upperBound { aboveRange += 1 }
        counts[binIndex(for: value)] += 1
    }
}

/// A corpus summary built from `dspscore` JSON Lines records, one line at a time, for
/// ``HTMLReport``.
///
/// Streaming: memory grows with the number of distinct sample rates, formats, error kinds and
/// environment categories, and with the short lists it keeps (the ``worstCount`` worst files
/// per measure, the first ``keptErrorCount`` errors) — not with the number of records. Lines are
/// parsed as generic JSON, so records with fields this version does not know (or lacks) are
/// summarised by the fields they have.
///
/// Any line is taken without trapping: a line that is not a JSON object with an
/// `audio_filepath` string, or whose known fields have the wrong JSON type or a value outside
/// the schema's range (a `sample_rate` of 1e30, a negative or fractional `clipped_samples`, a
/// non-finite number), is left out of every figure and counted as unreadable, with a
/// diagnostic naming the line and the field (``diagnostics``).
public struct CorpusSummary: Sendable {
    /// One file in a worst-files list.
    public struct Entry: Equatable, Sendable {
        /// `audio_filepath`.
        public var path: String
        /// The value ranked (its unit depends on the list); `nil` for −∞ (digital silence).
        public var value: Double?
        /// A second figure shown beside it (e.g. the clipped fraction); may be `nil`.
        public var detail: Double?
    }

    /// One failed file.
    public struct Failure: Equatable, Sendable {
        /// `audio_filepath`.
        public var path: String
        /// `error.kind`.
        public var kind: String
        /// `error.message`.
        public var message: String
    }

    /// Files per value and their audio seconds (ok files only).
    public struct Tally: Equatable, Sendable {
        /// Records with this value.
        public var files = 0
        /// Seconds of audio in the ok ones.
        public var seconds = 0.0
    }

    /// Entries kept per worst-files list.
    public static let worstCount = 10
    /// Failures kept for the errors list (all are counted by kind).
    public static let keptErrorCount = 200
    /// Upper edges (s) of the duration classes; the last class is open.
    public static let durationEdges: [Double] = [1, 2, 5, 10, 20, 30, 60, 300, 600, 1800, 3600]

    /// Non-empty lines seen.
    public private(set) var lines = 0
    /// Lines that were not JSON objects with an `audio_filepath` (line numbers of the first 20).
    public private(set) var unreadableLines: [Int] = []
    /// The count of such lines.
    public private(set) var unreadableLineCount = 0
    /// Why the first ``keptDiagnosticCount`` unreadable lines were left out, e.g.
    /// `"line 7: sample_rate: 1e+30 is not an integer in 1...1000000"`.
    public private(set) var diagnostics: [String] = []
    /// Diagnostics kept (all unreadable lines are counted).
    public static let keptDiagnosticCount = 20
    /// Records (files).
    public private(set) var files = 0
    /// Records with `status` `ok`.
    public private(set) var ok = 0
    /// Records with another status.
    public var failed: Int { files - ok }
    /// Seconds of audio in ok records.
    public private(set) var audioSeconds = 0.0
    /// Ok records per duration class (see ``durationEdges``; one more class than edges).
    public private(set) var durationClasses = Array(repeating: 0, count: CorpusSummary.durationEdges.count + 1)
    /// Ok records by `sample_rate`.
    public private(set) var bySampleRate: [Int: Tally] = [:]
    /// Ok records by `channels`.
    public private(set) var byChannels: [Int: Tally] = [:]
    /// Ok records by `format`.
    public private(set) var byFormat: [String: Tally] = [:]
    /// Failed records by `error.kind`.
    public private(set) var errorKinds: [String: Int] = [:]
    /// The first ``keptErrorCount`` failures, in input order.
    public private(set) var failures: [Failure] = []
    /// `provenance.library` + `version` values seen, with counts.
    public private(set) var versions: [String: Int] = [:]

    /// `levels.rms_dbfs`: −90…0 dBFS in 3 dB bins.
    public private(set) var rmsDBFS = ReportHistogram(title: "RMS level", unit: "dBFS", lowerBound: -90, binWidth: 3, binCount: 30)
    /// `levels.peak_dbfs`: −60…0 dBFS in 2 dB bins.
    public private(set) var peakDBFS = ReportHistogram(title: "Sample peak", unit: "dBFS", lowerBound: -60, binWidth: 2, binCount: 30)
    /// `loudness.integrated_lufs`: −70…0 LUFS in 2 LU bins.
    public private(set) var integratedLUFS = ReportHistogram(
        title: "Integrated loudness", unit: "LUFS", lowerBound: -70, binWidth: 2, binCount: 35)
    /// `loudness.loudness_range_lu`: 0…30 LU in 1 LU bins.
    public private(set) var loudnessRangeLU = ReportHistogram(
        title: "Loudness range", unit: "LU", lowerBound: 0, binWidth: 1, binCount: 30)
    /// `loudness.true_peak_dbtp`: −30…+6 dBTP in 1 dB bins.
    public private(set) var truePeakDBTP = ReportHistogram(title: "True peak", unit: "dBTP", lowerBound: -30, binWidth: 1, binCount: 36)
    /// `detection.speech_ratio`: 0…1 in 0.05 bins.
    public private(set) var speechRatio = ReportHistogram(title: "Speech ratio", unit: "of duration", lowerBound: 0, binWidth: 0.05, binCount: 20)
    /// `detection.music_ratio`: 0…1 in 0.05 bins.
    public private(set) var musicRatio = ReportHistogram(title: "Music ratio", unit: "of duration", lowerBound: 0, binWidth: 0.05, binCount: 20)
    /// `detection.multi_speaker_ratio`: 0…1 in 0.05 bins.
    public private(set) var multiSpeakerRatio = ReportHistogram(
        title: "Multi-speaker ratio", unit: "of duration", lowerBound: 0, binWidth: 0.05, binCount: 20)
    /// `environment.noise_dbfs`: −100…0 dBFS in 4 dB bins.
    public private(set) var noiseDBFS = ReportHistogram(title: "Background noise", unit: "dBFS", lowerBound: -100, binWidth: 4, binCount: 25)
    /// `environment.snr_db`: −10…60 dB in 2 dB bins (a silent background's 100 in the last).
    public private(set) var snrDB = ReportHistogram(title: "Speech-to-noise ratio", unit: "dB", lowerBound: -10, binWidth: 2, binCount: 35)
    /// `environment.c50_db`: −10…40 dB in 2 dB bins.
    public private(set) var c50DB = ReportHistogram(title: "Clarity C50", unit: "dB", lowerBound: -10, binWidth: 2, binCount: 25)
    /// `environment.rt60_s`: 0…2 s in 0.1 s bins.
    public private(set) var rt60Seconds = ReportHistogram(title: "Reverberation time RT60", unit: "s", lowerBound: 0, binWidth: 0.1, binCount: 20)
    /// `environment.bandwidth_hz`: 0…24 kHz in 1 kHz bins.
    public private(set) var bandwidthHz = ReportHistogram(title: "Audio bandwidth", unit: "Hz", lowerBound: 0, binWidth: 1000, binCount: 24)
    /// `environment.f0_median_hz`: 50…400 Hz in 10 Hz bins.
    public private(set) var f0MedianHz = ReportHistogram(title: "Median pitch F0", unit: "Hz", lowerBound: 50, binWidth: 10, binCount: 35)
    /// `environment.speaking_rate_sps`: 0…10 syllables per second in 0.5 bins.
    public private(set) var speakingRate = ReportHistogram(
        title: "Speaking rate", unit: "syllables/s", lowerBound: 0, binWidth: 0.5, binCount: 20)

    /// Ok records that carry a `loudness` object.
    public private(set) var loudnessRecords = 0
    /// Ok records that carry a `detection` object.
    public private(set) var detectionRecords = 0
    /// Ok records that carry an `environment` object.
    public private(set) var environmentRecords = 0
    /// `environment.noise_category` counts.
    public private(set) var noiseCategories: [String: Int] = [:]
    /// `environment.category_key` counts.
    public private(set) var categoryKeys: [String: Int] = [:]

    /// Ok records with digital silence (`rms_dbfs` null).
    public private(set) var silentFiles = 0
    /// Ok records with `clipped_samples` > 0.
    public private(set) var clippedFiles = 0
    /// Sum of `clipped_samples`.
    public private(set) var clippedSamples = 0
    /// Ok records with a true peak at or above 0 dBTP.
    public private(set) var truePeakOverFiles = 0
    /// Most clipped samples (value: samples; detail: fraction of all samples).
    public private(set) var mostClipped: [Entry] = []
    /// Lowest RMS (value: dBFS, `nil` = silence; detail: integrated LUFS).
    public private(set) var quietest: [Entry] = []
    /// Highest true peak (value: dBTP; detail: sample peak dBFS).
    public private(set) var loudestTruePeak: [Entry] = []

    /// Creates an empty summary.
    public init() {}

    /// Adds one JSON Lines line (blank lines are skipped); a line that is not a usable record
    /// is counted as unreadable with a diagnostic (see ``diagnostics``).
    public mutating func add(line: some StringProtocol, number: Int) {
        add(lineBytes: Array(line.utf8), number: number)
    }

    /// Adds one line given as bytes, as read from a file: a line that is not valid UTF-8 is
    /// unreadable.
    /// `source` (an input's name) goes before the line number in diagnostics.
    public mutating func add(lineBytes bytes: [UInt8], number: Int, source: String = "") {
        guard bytes.contains(where: { !Self.isJSONWhitespace($0) }) else { return }
        lines += 1
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return unreadable(number, "not valid UTF-8", source)
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            return unreadable(number, "not JSON", source)
        }
        guard let object = parsed as? [String: Any] else { return unreadable(number, "not a JSON object", source) }
        guard object["audio_filepath"] is String else { return unreadable(number, "no audio_filepath string", source) }
        if let problem = RecordCheck.problem(in: object) { return unreadable(number, problem, source) }
        addChecked(object)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private mutating func unreadable(_ number: Int, _ reason: String, _ source: String = "") {
        unreadableLineCount += 1
        if unreadableLines.count < Self.keptDiagnosticCount { unreadableLines.append(number) }
        if diagnostics.count < Self.keptDiagnosticCount {
            diagnostics.append((source.isEmpty ? "" : source + ":") + "line \(number): \(reason)")
        }
    }

    /// Adds a summary of all lines of `text`.
    public mutating func add(jsonLines text: String) {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            add(line: line, number: index + 1)
        }
    }

    /// Adds one decoded record. A record whose known fields fail the checks ``add(line:number:)``
    /// makes is counted as unreadable instead.
    public mutating func add(record: [String: Any]) {
        if let problem = RecordCheck.problem(in: record) { return unreadable(lines, problem) }
        addChecked(record)
    }

    private mutating func addChecked(_ record: [String: Any]) {
        let path = record["audio_filepath"] as? String ?? ""
        files += 1
        if let provenance = record["provenance"] as? [String: Any] {
            let name = "\(provenance["library"] as? String ?? "?") \(provenance["version"] as? String ?? "?")"
            versions[name, default: 0] += 1
        }
        guard record["status"] as? String == "ok" else {
            let error = record["error"] as? [String: Any]
            let kind = error?["kind"] as? String ?? "unknown"
            errorKinds[kind, default: 0] += 1
            if failures.count < Self.keptErrorCount {
                failures.append(Failure(path: path, kind: kind, message: error?["message"] as? String ?? ""))
            }
            return
        }
        ok += 1
        let duration = Self.number(record["duration"]) ?? 0
        audioSeconds += duration
        durationClasses[Self.durationEdges.firstIndex { duration < $0 } ?? Self.durationEdges.count] += 1
        if let rate = Self.integer(record["sample_rate"]) {
            bySampleRate[rate, default: Tally()].add(duration)
        }
        if let channels = Self.integer(record["channels"]) {
            byChannels[channels, default: Tally()].add(duration)
        }
        byFormat[record["format"] as? String ?? "?", default: Tally()].add(duration)

        let levels = record["levels"] as? [String: Any]
        let loudness = record["loudness"] as? [String: Any]
        if let levels {
            let rms = Self.number(levels["rms_dbfs"])
            rmsDBFS.add(rms)
            peakDBFS.add(Self.number(levels["peak_dbfs"]))
            if rms == nil { silentFiles += 1 }
            let clipped = Self.integer(levels["clipped_samples"]) ?? 0
            if clipped > 0 {
                clippedFiles += 1
                clippedSamples = clippedSamples.addingReportingOverflow(clipped).overflow ? .max : clippedSamples + clipped
                let samples = (Self.number(record["frames"]) ?? 0) * (Self.number(record["channels"]) ?? 1)
                Self.insert(
                    Entry(path: path, value: Double(clipped), detail: samples > 0 ? Double(clipped) / samples : nil),
                    into: &mostClipped, ranking: { $0.value ?? 0 }, descending: true)
            }
            Self.insert(
                Entry(path: path, value: rms, detail: loudness.flatMap { Self.number($0["integrated_lufs"]) }),
                into: &quietest, ranking: { $0.value ?? -.infinity }, descending: false)
        }
        if let loudness {
            loudnessRecords += 1
            integratedLUFS.add(Self.number(loudness["integrated_lufs"]))
            loudnessRangeLU.add(Self.number(loudness["loudness_range_lu"]))
            let truePeak = Self.number(loudness["true_peak_dbtp"])
            truePeakDBTP.add(truePeak)
            if let truePeak {
                if truePeak >= 0 { truePeakOverFiles += 1 }
                Self.insert(
                    Entry(path: path, value: truePeak, detail: levels.flatMap { Self.number($0["peak_dbfs"]) }),
                    into: &loudestTruePeak, ranking: { $0.value ?? -.infinity }, descending: true)
            }
        }
        if let detection = record["detection"] as? [String: Any] {
            detectionRecords += 1
            speechRatio.add(Self.number(detection["speech_ratio"]))
            musicRatio.add(Self.number(detection["music_ratio"]))
            multiSpeakerRatio.add(Self.number(detection["multi_speaker_ratio"]))
        }
        if let environment = record["environment"] as? [String: Any] {
            environmentRecords += 1
            noiseDBFS.add(Self.number(environment["noise_dbfs"]))
            snrDB.add(Self.number(environment["snr_db"]))
            c50DB.add(Self.number(environment["c50_db"]))
            rt60Seconds.add(Self.number(environment["rt60_s"]))
            bandwidthHz.add(Self.number(environment["bandwidth_hz"]))
            f0MedianHz.add(Self.number(environment["f0_median_hz"]))
            speakingRate.add(Self.number(environment["speaking_rate_sps"]))
            noiseCategories[environment["noise_category"] as? String ?? "(none)", default: 0] += 1
            if let key = environment["category_key"] as? String {
                categoryKeys[key, default: 0] += 1
            }
        }
    }

    /// A JSON number as `Double`; `nil` for `null`, absent, non-numbers (`true` and `false`
    /// included) and non-finite values.
    static func number(_ value: Any?) -> Double? {
        guard let number = RecordCheck.jsonNumber(value), number.doubleValue.isFinite else { return nil }
        return number.doubleValue
    }

    /// A JSON number that is a whole number within ±2⁵³ as `Int` (exact in a `Double`, so no
    /// conversion can trap); `nil` otherwise.
    static func integer(_ value: Any?) -> Int? {
        guard let double = number(value), double == double.rounded(.towardZero), abs(double) <= 9_007_199_254_740_992 else {
            return nil
        }
        return Int(double)
    }

    /// Keeps `list` as the best ``worstCount`` entries by `ranking` (ties: path order), so the
    /// result does not depend on the order records arrive in.
    static func insert(_ entry: Entry, into list: inout [Entry], ranking: (Entry) -> Double, descending: Bool) {
        func before(_ a: Entry, _ b: Entry) -> Bool {
            let (x, y) = (ranking(a), ranking(b))
            if x != y { return descending ? x > y : x < y }
            return a.path < b.path
        }
        if list.count == worstCount, let last = list.last, !before(entry, last) { return }
        let position = list.firstIndex { before(entry, $0) } ?? list.count
        list.insert(entry, at: position)
        if list.count > worstCount { list.removeLast() }
    }
}

extension CorpusSummary.Tally {
    fileprivate mutating func add(_ duration: Double) {
        files += 1
        seconds += duration
    }
}

/// What ``CorpusSummary`` checks of a record before using it: the fields it reads have their
/// schema's JSON type and range. Unknown fields are not looked at.
enum RecordCheck {
    /// The whole numbers the summary converts to `Int`, with their range.
    static let integers: [(key: String, range: ClosedRange<Double>)] = [
        ("sample_rate", 1...9_007_199_254_740_992), ("channels", 1...9_007_199_254_740_992),
        ("frames", 0...9_007_199_254_740_992),
    ]
    static let levelIntegers = ["clipped_samples", "non_finite_samples"]
    /// Seconds; a bound far above any real file keeps sums of many records finite.
    static let durationRange: ClosedRange<Double> = 0...1e12

    /// The first problem found, e.g. `"sample_rate: 1e+30 is not an integer in 1...9007199254740992"`; `nil` when none.
    static func problem(in record: [String: Any]) -> String? {
        if let problem = numberProblem(record, "duration", range: durationRange, integral: false) { return problem }
        for (key, range) in integers {
            if let problem = numberProblem(record, key, range: range, integral: true) { return problem }
        }
        for key in ["status", "format"] {
            if let value = record[key], !(value is NSNull), !(value is String) { return "\(key): not a string" }
        }
        for key in ["error", "provenance", "levels", "loudness", "detection", "environment"] {
            guard let value = record[key], !(value is NSNull) else { continue }
            guard let object = value as? [String: Any] else { return "\(key): not an object" }
            for (inner, innerValue) in object where !(innerValue is String) {
                if let number = innerValue as? NSNumber, !number.doubleValue.isFinite {
                    return "\(key).\(inner): not a finite number"
                }
            }
            if key == "levels" {
                for inner in levelIntegers {
                    if let problem = numberProblem(object, inner, range: 0...9_007_199_254_740_992, integral: true) {
                        return "levels." + problem
                    }
                }
            }
        }
        return nil
    }

    /// A JSON number as `JSONSerialization` gives it: an `NSNumber` that is not a boolean.
    static func jsonNumber(_ value: Any?) -> NSNumber? {
        guard let value, !(value is NSNull), !(value is String), let number = value as? NSNumber else { return nil }
        return number.objCType.pointee == CChar(UInt8(ascii: "c")) ? nil : number
    }

    private static func numberProblem(_ object: [String: Any], _ key: String, range: ClosedRange<Double>, integral: Bool) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let double = jsonNumber(value)?.doubleValue else { return "\(key): not a number" }
        let whole = double.isFinite && double == double.rounded(.towardZero)
        guard double.isFinite, range.contains(double), !integral || whole else {
            return "\(key): \(double) is not \(integral ? "an integer" : "a number") in \(range.lowerBound.formatted())...\(range.upperBound.formatted())"
        }
        return nil
    }
}

extension Double {
    /// Whole numbers without a decimal point, others as Swift prints them.
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e16 ? String(Int(self)) : description
    }
}
