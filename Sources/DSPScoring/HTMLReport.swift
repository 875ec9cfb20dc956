import Foundation

/// A self-contained HTML page summarising a `dspscore` run: what `dspscore report` writes.
///
/// One file, no scripts and nothing loaded from elsewhere: inline CSS and inline SVG charts
/// drawn here. Sections: corpus totals (files ok/failed, audio hours, by sample rate, channels,
/// format, duration), levels (RMS and sample-peak histograms), loudness (integrated LUFS,
/// loudness range, true peak), clipping, speech/music/multi-speaker ratios and environment
/// categories (when the records carry `detection` / `environment`; otherwise the section says
/// "not in these records"), error kinds, and the worst files.
///
/// Every text taken from records is escaped (`&`, `<`, `>`, `"`, `'`; characters XML does not
/// allow become U+FFFD), and every element is closed, so the page is well-formed XML as well as
/// HTML.
public enum HTMLReport {
    /// Renders `summary` as a page titled `title`; `sources` names the input files.
    public static func render(_ summary: CorpusSummary, title: String = "dspscore report", sources: [String] = []) -> String {
        var page = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(escape(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            <header><h1>\(escape(title))</h1>
            """
        if !sources.isEmpty {
            page += "<p class=\"sources\">From " + sources.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")
            page += versionsText(summary) + "</p>"
        }
        page += "</header>\n"
        page += totals(summary)
        page += levels(summary)
        page += loudness(summary)
        page += clipping(summary)
        page += detection(summary)
        page += environment(summary)
        page += errors(summary)
        page += worst(summary)
        page += """
            <footer>Written by <code>dspscore report</code>. Histogram bins are half-open \
            [low, high); values outside a chart's range are counted in its first or last bin \
            (marked ≤ / ≥). Field definitions: <code>dspscore schema</code>.</footer>
            </body>
            </html>

            """
        return page
    }

    // MARK: Sections

    static func totals(_ s: CorpusSummary) -> String {
        var html = "<section id=\"totals\"><h2>Corpus</h2><div class=\"cards\">"
        html += card("\(s.files)", "files")
        html += card("\(s.ok)", "scored ok", style: "ok")
        html += card("\(s.failed)", "failed", style: s.failed > 0 ? "bad" : "ok")
        html += card(String(format: "%.2f", s.audioSeconds / 3600), "audio hours")
        html += card(s.ok > 0 ? String(format: "%.1f s", s.audioSeconds / Double(s.ok)) : "–", "mean duration")
        if s.unreadableLineCount > 0 {
            html += card("\(s.unreadableLineCount)", "unreadable lines", style: "bad")
        }
        html += "</div>"
        if s.unreadableLineCount > 0 {
            html += "<p class=\"note bad\">Lines that are not dspscore records (first: "
                + s.unreadableLines.map(String.init).joined(separator: ", ") + ") are left out.</p>"
        }
        guard s.ok > 0 else { return html + "<p class=\"na\">No file was scored ok.</p></section>\n" }
        html += "<div class=\"grid\">"
        html += tallyTable("Sample rate", s.bySampleRate.sorted { $0.key < $1.key }.map { ("\($0.key) Hz", $0.value) }, total: s.ok)
        html += tallyTable("Channels", s.byChannels.sorted { $0.key < $1.key }.map { ("\($0.key)", $0.value) }, total: s.ok)
        html += tallyTable("Format", s.byFormat.sorted { ($0.value.files, $1.key) > ($1.value.files, $0.key) }.map { ($0.key, $0.value) }, total: s.ok)
        html += "</div>"
        var classes: [(label: String, count: Int)] = []
        var low = 0.0
        for (index, edge) in CorpusSummary.durationEdges.enumerated() {
            classes.append((label: "\(duration(low))–\(duration(edge))", count: s.durationClasses[index]))
            low = edge
        }
        classes.append((label: "≥ \(duration(low))", count: s.durationClasses.last ?? 0))
        // From the first to the last non-empty class.
        if let first = classes.firstIndex(where: { $0.count > 0 }), let last = classes.lastIndex(where: { $0.count > 0 }) {
            classes = Array(classes[first...last])
        }
        html += "<h3>Duration</h3>" + figure(svgBars(classes, id: "chart-duration"))
        return html + "</section>\n"
    }

    static func levels(_ s: CorpusSummary) -> String {
        var html = "<section id=\"levels\"><h2>Levels</h2>"
        guard s.rmsDBFS.total + s.rmsDBFS.missing > 0 else { return html + notInRecords("levels") + "</section>\n" }
        html += "<div class=\"grid\">"
        html += histogramFigure(s.rmsDBFS, id: "chart-rms", decimals: 0, missingMeaning: "digital silence (−∞)")
        html += histogramFigure(s.peakDBFS, id: "chart-peak", decimals: 0, missingMeaning: "digital silence (−∞)")
        html += "</div>"
        return html + "</section>\n"
    }

    static func loudness(_ s: CorpusSummary) -> String {
        var html = "<section id=\"loudness\"><h2>Loudness (ITU-R BS.1770-5 / EBU R128)</h2>"
        guard s.loudnessRecords > 0 else { return html + notInRecords("loudness") + "</section>\n" }
        html += "<div class=\"grid\">"
        html += histogramFigure(s.integratedLUFS, id: "chart-lufs", decimals: 0, missingMeaning: "below the −70 LUFS gate")
        html += histogramFigure(s.loudnessRangeLU, id: "chart-lra", decimals: 0, missingMeaning: "no value")
        html += histogramFigure(s.truePeakDBTP, id: "chart-truepeak", decimals: 0, missingMeaning: "digital silence (−∞)")
        html += "</div>"
        return html + "</section>\n"
    }

    static func clipping(_ s: CorpusSummary) -> String {
        var html = "<section id=\"clipping\"><h2>Clipping</h2><div class=\"cards\">"
        html += card("\(s.clippedFiles)", "files with clipped samples", style: s.clippedFiles > 0 ? "warn" : "ok")
        html += card(s.ok > 0 ? percent(Double(s.clippedFiles) / Double(s.ok)) : "–", "of ok files")
        html += card("\(s.clippedSamples)", "clipped samples")
        html += card("\(s.truePeakOverFiles)", "files with true peak ≥ 0 dBTP", style: s.truePeakOverFiles > 0 ? "warn" : "ok")
        html += "</div>"
        if s.mostClipped.isEmpty {
            html += "<p class=\"na\">No file has clipped samples.</p>"
        } else {
            html += "<h3>Most clipped</h3>"
            html += entryTable(s.mostClipped, columns: ("clipped samples", "of all samples")) {
                (String(Int($0.value ?? 0)), $0.detail.map(percent) ?? "–")
            }
        }
        return html + "</section>\n"
    }

    static func detection(_ s: CorpusSummary) -> String {
        var html = "<section id=\"detection\"><h2>Speech, music, several speakers</h2>"
        guard s.detectionRecords > 0 else { return html + notInRecords("detection") + "</section>\n" }
        html += "<p class=\"note\">Fraction of each file's duration (<code>detection.*_ratio</code>), \(s.detectionRecords) files.</p>"
        html += "<div class=\"grid\">"
        html += histogramFigure(s.speechRatio, id: "chart-speech", decimals: 1, missingMeaning: "no value")
        html += histogramFigure(s.musicRatio, id: "chart-music", decimals: 1, missingMeaning: "no value")
        html += histogramFigure(s.multiSpeakerRatio, id: "chart-multispeaker", decimals: 1, missingMeaning: "no value")
        html += "</div>"
        return html + "</section>\n"
    }

    static func environment(_ s: CorpusSummary) -> String {
        var html = "<section id=\"environment\"><h2>Environment</h2>"
        guard s.environmentRecords > 0 else { return html + notInRecords("environment") + "</section>\n" }
        let order = ["very_quiet", "quiet", "moderate", "loud", "very_loud"]
        let categories = s.noiseCategories.sorted {
            (order.firstIndex(of: $0.key) ?? order.count, $0.key) < (order.firstIndex(of: $1.key) ?? order.count, $1.key)
        }
        html += "<div class=\"grid\"><figure><figcaption>Noise category (<code>environment.noise_category</code>)</figcaption>"
        html += svgBars(categories.map { (label: $0.key, count: $0.value) }, id: "chart-noise-category") + "</figure>"
        html += histogramFigure(s.noiseDBFS, id: "chart-noise", decimals: 0, missingMeaning: "silent (no noise floor)")
        html += histogramFigure(s.snrDB, id: "chart-snr", decimals: 0, missingMeaning: "without speech")
        html += histogramFigure(s.c50DB, id: "chart-c50", decimals: 0, missingMeaning: "with too few free decays")
        html += histogramFigure(s.rt60Seconds, id: "chart-rt60", decimals: 1, missingMeaning: "with too few free decays")
        html += histogramFigure(s.bandwidthHz, id: "chart-bandwidth", decimals: 0, missingMeaning: "with too little audio")
        html += histogramFigure(s.f0MedianHz, id: "chart-f0", decimals: 0, missingMeaning: "with too little voiced speech")
        html += histogramFigure(s.speakingRate, id: "chart-rate", decimals: 1, missingMeaning: "without speech")
        html += "</div>"
        if !s.categoryKeys.isEmpty {
            let keys = s.categoryKeys.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            html += "<h3>Category keys (<code>environment.category_key</code>)</h3><table><thead><tr><th>key</th><th class=\"num\">files</th><th class=\"num\">share</th></tr></thead><tbody>"
            for (key, count) in keys.prefix(30) {
                html += "<tr><td><code>\(escape(key))</code></td><td class=\"num\">\(count)</td><td class=\"num\">\(percent(Double(count) / Double(s.environmentRecords)))</td></tr>"
            }
            html += "</tbody></table>"
            if keys.count > 30 { html += "<p class=\"note\">… and \(keys.count - 30) more keys.</p>" }
        }
        return html + "</section>\n"
    }

    static func errors(_ s: CorpusSummary) -> String {
        var html = "<section id=\"errors\"><h2>Errors</h2>"
        guard s.failed > 0 else { return html + "<p class=\"na\">No file failed.</p></section>\n" }
        html += "<table><thead><tr><th>kind</th><th class=\"num\">files</th></tr></thead><tbody>"
        for (kind, count) in s.errorKinds.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            html += "<tr><td><code>\(escape(kind))</code></td><td class=\"num\">\(count)</td></tr>"
        }
        html += "</tbody></table>"
        return html + "</section>\n"
    }

    static func worst(_ s: CorpusSummary) -> String {
        var html = "<section id=\"worst\"><h2>Worst files</h2>"
        if !s.quietest.isEmpty {
            html += "<h3>Quietest (lowest RMS)</h3>"
            html += entryTable(s.quietest, columns: ("RMS dBFS", "integrated LUFS")) {
                ($0.value.map { number($0, 1) } ?? "−∞", $0.detail.map { number($0, 1) } ?? "–")
            }
        }
        if !s.loudestTruePeak.isEmpty {
            html += "<h3>Loudest true peak</h3>"
            html += entryTable(s.loudestTruePeak, columns: ("true peak dBTP", "sample peak dBFS")) {
                ($0.value.map { number($0, 2) } ?? "–", $0.detail.map { number($0, 2) } ?? "−∞")
            }
        }
        if !s.mostClipped.isEmpty {
            html += "<p class=\"note\">Most clipped: see <a href=\"#clipping\">Clipping</a>.</p>"
        }
        if !s.failures.isEmpty {
            html += "<h3>Failed files</h3><table><thead><tr><th>file</th><th>kind</th><th>message</th></tr></thead><tbody>"
            for failure in s.failures {
                html += "<tr><td class=\"path\">\(escape(failure.path))</td><td><code>\(escape(failure.kind))</code></td><td class=\"msg\">\(escape(failure.message))</td></tr>"
            }
            html += "</tbody></table>"
            if s.failed > s.failures.count {
                html += "<p class=\"note\">… and \(s.failed - s.failures.count) more failed files (see the records).</p>"
            }
        }
        if s.quietest.isEmpty && s.failures.isEmpty { html += "<p class=\"na\">No records.</p>" }
        return html + "</section>\n"
    }

    // MARK: Pieces

    static func notInRecords(_ field: String) -> String {
        "<p class=\"na\">Not in these records: no ok record has a <code>\(escape(field))</code> object.</p>"
    }

    static func card(_ value: String, _ label: String, style: String = "") -> String {
        "<div class=\"card \(style)\"><div class=\"value\">\(escape(value))</div><div class=\"label\">\(escape(label))</div></div>"
    }

    static func figure(_ svg: String) -> String { "<figure>\(svg)</figure>" }

    static func histogramFigure(_ histogram: ReportHistogram, id: String, decimals: Int, missingMeaning: String) -> String {
        var html = "<figure><figcaption>\(escape(histogram.title)) <span class=\"unit\">\(escape(histogram.unit))</span> · \(histogram.total) files"
        if histogram.missing > 0 { html += ", \(histogram.missing) \(escape(missingMeaning)) not shown" }
        html += "</figcaption>" + svg(histogram, id: id, decimals: decimals) + "</figure>"
        return html
    }

    static func tallyTable(_ title: String, _ rows: [(String, CorpusSummary.Tally)], total: Int) -> String {
        var html = "<table><thead><tr><th>\(escape(title))</th><th class=\"num\">files</th><th class=\"num\">share</th><th class=\"num\">hours</th></tr></thead><tbody>"
        for (label, tally) in rows.prefix(20) {
            html += "<tr><td>\(escape(label))</td><td class=\"num\">\(tally.files)</td><td class=\"num\">\(percent(Double(tally.files) / Double(max(total, 1))))</td><td class=\"num\">\(String(format: "%.2f", tally.seconds / 3600))</td></tr>"
        }
        if rows.count > 20 { html += "<tr><td colspan=\"4\">… and \(rows.count - 20) more</td></tr>" }
        return html + "</tbody></table>"
    }

    static func entryTable(
        _ entries: [CorpusSummary.Entry], columns: (String, String), cells: (CorpusSummary.Entry) -> (String, String)
    ) -> String {
        var html = "<table><thead><tr><th>file</th><th class=\"num\">\(escape(columns.0))</th><th class=\"num\">\(escape(columns.1))</th></tr></thead><tbody>"
        for entry in entries {
            let (a, b) = cells(entry)
            html += "<tr><td class=\"path\">\(escape(entry.path))</td><td class=\"num\">\(escape(a))</td><td class=\"num\">\(escape(b))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    static func versionsText(_ s: CorpusSummary) -> String {
        guard !s.versions.isEmpty else { return "" }
        return " · scored by " + s.versions.sorted { $0.key < $1.key }.map { "\(escape($0.key)) (\($0.value) files)" }.joined(separator: ", ")
    }

    static func percent(_ fraction: Double) -> String {
        fraction > 0 && fraction < 0.001 ? "< 0.1 %" : String(format: "%.1f %%", fraction * 100)
    }

    static func duration(_ seconds: Double) -> String {
        seconds >= 3600 ? "\(Int(seconds / 3600)) h" : seconds >= 60 ? "\(Int(seconds / 60)) min" : seconds == 0 ? "0" : "\(Int(seconds)) s"
    }

    /// Escapes text for HTML/XML content and attribute values. Characters XML 1.0 does not
    /// allow (C0 controls other than tab, LF, CR; U+FFFE, U+FFFF) become U+FFFD.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// The page's CSS (no `<` or `&`, so it stays well-formed XML text).
    static let style = """
        :root{--fg:#1d2430;--muted:#5b6677;--line:#dde2ea;--bar:#3b6fb6;--ok:#2f855a;--bad:#c53030;--warn:#b7791f;--bg:#f6f7f9}
        *{box-sizing:border-box}
        body{margin:0;padding:24px 32px 40px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
        header h1{margin:0 0 4px;font-size:22px}
        .sources{margin:0 0 16px;color:var(--muted)}
        section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:0 0 18px}
        h2{margin:0 0 12px;font-size:17px}
        h3{margin:18px 0 8px;font-size:14px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .cards{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:12px}
        .card{min-width:130px;padding:10px 14px;border:1px solid var(--line);border-radius:6px;background:var(--bg)}
        .card .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}
        .card .label{color:var(--muted);font-size:12px}
        .card.ok .value{color:var(--ok)} .card.bad .value{color:var(--bad)} .card.warn .value{color:var(--warn)}
        .grid{display:flex;flex-wrap:wrap;gap:16px 28px;align-items:flex-start}
        figure{margin:0}
        figcaption{font-weight:600;margin-bottom:4px}
        figcaption .unit{color:var(--muted);font-weight:400}
        table{border-collapse:collapse;margin:4px 0 8px;font-variant-numeric:tabular-nums}
        th,td{padding:3px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
        th{font-size:12px;color:var(--muted);font-weight:600}
        td.num,th.num{text-align:right}
        td.path{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;word-break:break-all;max-width:560px}
        td.msg{font-size:12px;color:var(--muted);max-width:520px}
        code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
        .na{color:var(--muted);font-style:italic}
        .note{color:var(--muted);font-size:12px}
        .note.bad{color:var(--bad)}
        footer{color:var(--muted);font-size:12px}
        svg.chart{display:block;max-width:100%;height:auto}
        svg .bar{fill:var(--bar)}
        svg .bar:hover{fill:#244a80}
        svg .gridline{stroke:var(--line);stroke-width:1}
        svg .axis,svg .tick{stroke:#8792a2;stroke-width:1}
        svg text{font-size:11px;fill:var(--muted);font-family:system-ui,sans-serif}
        svg .ylabel,svg .blabel{text-anchor:end}
        svg .xlabel,svg .unit{text-anchor:middle}
        svg .bvalue{fill:var(--fg)}
        """
}
