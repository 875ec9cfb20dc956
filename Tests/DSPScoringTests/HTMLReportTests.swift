import DSPScoring
import Foundation
import Testing
import TestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses a page as XML and collects, per SVG `id`, the `data-count` of its bars.
private final class PageParser: NSObject, XMLParserDelegate {
    var bars: [String: [Int]] = [:]
    var svgDepth = 0
    var currentSVG: String?
    var elements = 0
    var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elements += 1
        if name == "svg" { currentSVG = attributes["id"] }
        if name == "rect", let svg = currentSVG, let count = attributes["data-count"].flatMap(Int.init) {
            bars[svg, default: []].append(count)
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "svg" { currentSVG = nil }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    static func parse(_ page: String) -> (ok: Bool, parser: PageParser, error: String) {
        let delegate = PageParser()
        let parser = XMLParser(data: Data(page.utf8))
        parser.delegate = delegate
        let ok = parser.parse()
        return (ok, delegate, "\(String(describing: parser.parserError)) at line \(parser.lineNumber)")
    }
}

@Suite("dspscore report: the HTML page")
struct HTMLReportTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "dspscore-report-tests")
    }

    /// The path with markup characters in its name (a real copy of a TestAudio file).
    static let hostileName = #"a<b>&"c'd <script>.wav"#

    /// Records of every TestAudio file, a hostile-named copy, and two failures, as JSON Lines,
    /// with levels and loudness only (the detection sections are tested with their own values).
    func records() throws -> [String] {
        let hostile = directory.url(Self.hostileName)
        try? FileManager.default.removeItem(at: hostile)
        try FileManager.default.copyItem(at: testAudio.appendingPathComponent("speech_clipped_16k.wav"), to: hostile)
        let empty = directory.url("empty & <void>.wav")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        let scorer = try FileScorer(configuration: .init(analyses: [.levels, .loudness]))
        let paths = testAudioFiles() + [hostile.path, empty.path, directory.path("missing.wav")]
        return paths.map { ScoreFormatting.jsonLine(scorer.score(path: $0)) }
    }

    func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func summary(_ lines: [String]) -> CorpusSummary {
        var summary = CorpusSummary()
        summary.add(jsonLines: lines.joined(separator: "\n") + "\n")
        return summary
    }

    /// A field of an ok record by dotted path, as a Double (`nil` for null or absent).
    static func value(_ record: [String: Any], _ path: String) -> Double? {
        var current: Any? = record
        for key in path.split(separator: ".") { current = (current as? [String: Any])?[String(key)] }
        return (current as? NSNumber)?.doubleValue
    }

    /// Checks a histogram against the records, counting by comparisons with the bin edges.
    static func check(_ histogram: ReportHistogram, _ field: String, _ records: [[String: Any]], bars: [Int]?) {
        let ok = records.filter { $0["status"] as? String == "ok" && $0[String(field.split(separator: ".")[0])] != nil }
        let values = ok.compactMap { value($0, field) }
        #expect(histogram.missing == ok.count - values.count, "\(field) missing")
        #expect(histogram.total == values.count, "\(field) total")
        let last = histogram.counts.count - 1
        for bin in 0...last {
            let low = histogram.edge(bin), high = histogram.edge(bin + 1)
            let expected = values.filter { v in
                (bin == 0 || v >= low) && (bin == last || v < high)
            }.count
            #expect(histogram.counts[bin] == expected, "\(field) bin \(bin) [\(low), \(high))")
        }
        #expect(bars == histogram.counts, "\(field): the SVG bars carry the counts")
    }

    @Test("the page is well-formed XML, paths are escaped, histograms count the records")
    func wellFormedAndCounted() throws {
        let lines = try records()
        let records = try objects(lines)
        let summary = summary(lines)
        let page = HTMLReport.render(summary, title: "TestAudio <&>", sources: ["run & co.jsonl"])
        let (ok, parsed, error) = PageParser.parse(page)
        #expect(ok, "not well-formed: \(error)")
        #expect(parsed.elements > 100)

        // Escaping: no raw markup from records, and the escaped forms are present.
        #expect(!page.contains(Self.hostileName) && !page.contains("<script>") && !page.contains("<void>"))
        #expect(page.contains(HTMLReport.escape(Self.hostileName)))
        #expect(parsed.text.contains(Self.hostileName), "the parsed text gives the path back")
        #expect(parsed.text.contains("TestAudio <&>") && parsed.text.contains("run & co.jsonl"))
        #expect(!page.contains("<script"), "no scripts")
        let withoutNamespaces = page.replacingOccurrences(of: "xmlns=\"http://www.w3.org/", with: "")
        #expect(!withoutNamespaces.contains("http:") && !withoutNamespaces.contains("https:") && !withoutNamespaces.contains("src="), "nothing fetched")

        // Totals.
        let okCount = records.filter { $0["status"] as? String == "ok" }.count
        #expect(summary.files == records.count && summary.ok == okCount && summary.failed == records.count - okCount)
        #expect(summary.failed == 2 && summary.errorKinds == ["empty": 1, "not_found": 1])
        let seconds = records.filter { $0["status"] as? String == "ok" }.compactMap { Self.value($0, "duration") }.reduce(0, +)
        #expect(abs(summary.audioSeconds - seconds) < 1e-9)
        #expect(summary.bySampleRate.values.map(\.files).reduce(0, +) == okCount)
        #expect(summary.bySampleRate[16_000]?.files == records.filter { $0["status"] as? String == "ok" && Self.value($0, "sample_rate") == 16_000 }.count)

        // Histograms, against the records and against the SVG bars.
        Self.check(summary.rmsDBFS, "levels.rms_dbfs", records, bars: parsed.bars["chart-rms"])
        Self.check(summary.peakDBFS, "levels.peak_dbfs", records, bars: parsed.bars["chart-peak"])
        Self.check(summary.integratedLUFS, "loudness.integrated_lufs", records, bars: parsed.bars["chart-lufs"])
        Self.check(summary.loudnessRangeLU, "loudness.loudness_range_lu", records, bars: parsed.bars["chart-lra"])
        Self.check(summary.truePeakDBTP, "loudness.true_peak_dbtp", records, bars: parsed.bars["chart-truepeak"])
        #expect(summary.rmsDBFS.missing == 1, "silence_16k.wav is the one silent file")
        #expect(parsed.bars["chart-duration"]?.reduce(0, +) == okCount)

        // Clipping and the worst lists.
        let clipped = records.filter { (Self.value($0, "levels.clipped_samples") ?? 0) > 0 }
        #expect(summary.clippedFiles == clipped.count && clipped.count >= 2)
        #expect(summary.mostClipped.first.map { $0.value } == clipped.compactMap { Self.value($0, "levels.clipped_samples") }.max())
        #expect(summary.quietest.first?.path.hasSuffix("silence_16k.wav") == true && summary.quietest.first?.value == nil)
        let truePeaks = records.compactMap { Self.value($0, "loudness.true_peak_dbtp") }
        #expect(summary.loudestTruePeak.first?.value == truePeaks.max())
        #expect(summary.loudestTruePeak.map { $0.value! } == truePeaks.sorted(by: >).prefix(CorpusSummary.worstCount).map { $0 })

        // No detection fields in these records: the sections say so.
        #expect(summary.detectionRecords == 0 && summary.environmentRecords == 0)
        for section in ["detection", "environment"] {
            let body = try #require(Self.section(section, of: page))
            #expect(body.contains("Not in these records"), "\(section)")
            #expect(!body.contains("<svg"))
        }
    }

    @Test("detection and environment fields, when present, are drawn and counted")
    func detectionSections() throws {
        // Today's records with the detection/environment objects the lead's records will carry
        // (docs: /work/notes/detection-interface.md), filled with values spread over 0…1.
        var records = try objects(try records())
        let categories = ["very_quiet", "quiet", "moderate", "loud", "very_loud"]
        for index in records.indices where records[index]["status"] as? String == "ok" {
            let x = Double((index * 37) % 101) / 100  // 0…1, both ends included for some n
            records[index]["detection"] = [
                "speech_ratio": x, "music_ratio": 1 - x, "multi_speaker_ratio": index % 3 == 0 ? NSNull() : x / 2,
                "speech_seconds": x * 5, "speech_segments": index % 4,
            ] as [String: Any]
            records[index]["environment"] = [
                "noise_dbfs": index % 5 == 0 ? NSNull() : -20 - Double(index) * 3,
                "noise_category": categories[index % categories.count],
                "category_key": "\(index % 2 == 0 ? 45 : 60)_\(index % 3 == 0)_true",
                "speech_clarity": x, "frequency_complexity": 1 - x,
                "snr_db": index % 4 == 0 ? NSNull() : (index % 7 == 0 ? 100 : x * 70 - 10),
                "c50_db": index % 3 == 0 ? NSNull() : x * 50 - 10, "rt60_s": index % 3 == 0 ? NSNull() : x * 2.2,
                "bandwidth_hz": index % 6 == 0 ? NSNull() : x * 24_000,
                "f0_median_hz": index % 5 == 1 ? NSNull() : 40 + x * 380,
                "speaking_rate_sps": index % 5 == 1 ? NSNull() : x * 10,
            ] as [String: Any]
        }
        let lines = try records.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let summary = summary(lines)
        let page = HTMLReport.render(summary)
        let (ok, parsed, error) = PageParser.parse(page)
        #expect(ok, "not well-formed: \(error)")
        let okRecords = records.filter { $0["status"] as? String == "ok" }
        #expect(summary.detectionRecords == okRecords.count && summary.environmentRecords == okRecords.count)
        Self.check(summary.speechRatio, "detection.speech_ratio", records, bars: parsed.bars["chart-speech"])
        Self.check(summary.musicRatio, "detection.music_ratio", records, bars: parsed.bars["chart-music"])
        Self.check(summary.multiSpeakerRatio, "detection.multi_speaker_ratio", records, bars: parsed.bars["chart-multispeaker"])
        Self.check(summary.noiseDBFS, "environment.noise_dbfs", records, bars: parsed.bars["chart-noise"])
        Self.check(summary.snrDB, "environment.snr_db", records, bars: parsed.bars["chart-snr"])
        Self.check(summary.c50DB, "environment.c50_db", records, bars: parsed.bars["chart-c50"])
        Self.check(summary.rt60Seconds, "environment.rt60_s", records, bars: parsed.bars["chart-rt60"])
        Self.check(summary.bandwidthHz, "environment.bandwidth_hz", records, bars: parsed.bars["chart-bandwidth"])
        Self.check(summary.f0MedianHz, "environment.f0_median_hz", records, bars: parsed.bars["chart-f0"])
        Self.check(summary.speakingRate, "environment.speaking_rate_sps", records, bars: parsed.bars["chart-rate"])
        #expect(summary.speechRatio.counts.last! >= 1, "a ratio of exactly 1 lands in the last bin")
        // Category bars: in the fixed order very_quiet … very_loud, with the records' counts.
        let expected = categories.map { category in okRecords.filter { ($0["environment"] as? [String: Any])?["noise_category"] as? String == category }.count }
            .filter { $0 > 0 }
        #expect(parsed.bars["chart-noise-category"] == expected)
        #expect(summary.categoryKeys.values.reduce(0, +) == okRecords.count)
        for section in ["detection", "environment"] {
            let body = try #require(Self.section(section, of: page))
            #expect(!body.contains("Not in these records") && body.contains("<svg"), "\(section)")
        }
    }

    @Test("worst lists and histograms do not depend on record order; bad lines are counted")
    func orderAndBadLines() throws {
        let lines = try records()
        var shuffled = lines
        var state: UInt64 = 42
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            shuffled.swapAt(i, Int(state >> 33) % (i + 1))
        }
        let a = summary(lines), b = summary(shuffled + ["{not json", "[1,2]", ""])
        #expect(a.quietest == b.quietest && a.loudestTruePeak == b.loudestTruePeak && a.mostClipped == b.mostClipped)
        #expect(a.rmsDBFS == b.rmsDBFS && a.integratedLUFS == b.integratedLUFS && a.files == b.files)
        #expect(b.unreadableLineCount == 2 && b.lines == lines.count + 2)
        let page = HTMLReport.render(b)
        #expect(PageParser.parse(page).ok)
        #expect(page.contains("unreadable lines"))
    }

    @Test("an empty input gives a page that says so")
    func empty() {
        let page = HTMLReport.render(CorpusSummary())
        #expect(PageParser.parse(page).ok)
        #expect(page.contains("No file was scored ok") && page.contains("No file failed"))
    }

    @Test("escaping: markup characters, and control characters XML cannot hold")
    func escaping() {
        #expect(HTMLReport.escape(#"<a href="x">&'"#) == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(HTMLReport.escape("tab\there\u{1}\u{7F}é") == "tab\there\u{FFFD}\u{7F}é")
        let page = HTMLReport.render(CorpusSummary(), title: "bell \u{7} <x>")
        #expect(PageParser.parse(page).ok)
    }

    @Test("histogram bins: half-open, clamped at both ends, nulls apart")
    func histogramBins() {
        var histogram = ReportHistogram(title: "t", unit: "u", lowerBound: 0, binWidth: 0.25, binCount: 4)
        for value in [0, 0.25, 0.5, 0.99, 1.0, -3, 7, .infinity] as [Double] { histogram.add(value) }
        histogram.add(nil)
        #expect(histogram.counts == [2, 1, 1, 3])  // -3 and 0 | 0.25 | 0.5 | 0.99, 1.0, 7
        #expect(histogram.belowRange == 1 && histogram.aboveRange == 1 && histogram.missing == 2)
    }

    /// The text of `<section id="name">…</section>`.
    static func section(_ name: String, of page: String) -> String? {
        guard let start = page.range(of: "<section id=\"\(name)\">"),
            let end = page.range(of: "</section>", range: start.upperBound..<page.endIndex)
        else { return nil }
        return String(page[start.upperBound..<end.lowerBound])
    }
}
