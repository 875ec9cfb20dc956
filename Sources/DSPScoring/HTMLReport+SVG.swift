import Foundation

// Inline SVG charts drawn as text: no scripts, no fonts or styles from outside the page.
// Every element is closed (`<rect …/>`), so the page parses as XML.

extension HTMLReport {
    /// Chart geometry, in SVG user units (CSS pixels at 100 %).
    enum Chart {
        static let width = 560.0
        static let height = 210.0
        static let left = 46.0
        static let right = 12.0
        static let top = 14.0
        static let bottom = 40.0
    }

    /// A histogram as an SVG bar chart. Each bar carries `data-bin` and `data-count`, and a
    /// `<title>` tooltip with its range and count.
    static func svg(_ histogram: ReportHistogram, id: String, decimals: Int) -> String {
        let plotWidth = Chart.width - Chart.left - Chart.right
        let plotHeight = Chart.height - Chart.top - Chart.bottom
        let maximum = max(1, histogram.counts.max() ?? 1)
        let scaleMax = niceCeiling(Double(maximum))
        let barWidth = plotWidth / Double(histogram.counts.count)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" id="\(id)" class="chart" role="img" \
            viewBox="0 0 \(f(Chart.width)) \(f(Chart.height))" width="\(f(Chart.width))" height="\(f(Chart.height))">\
            <title>\(escape(histogram.title)) (\(escape(histogram.unit))): \(histogram.total) files</title>
            """
        // Grid and y labels: 0, half, max.
        for fraction in [0.0, 0.5, 1.0] {
            let y = Chart.top + plotHeight * (1 - fraction)
            svg += #"<line class="gridline" x1="\#(f(Chart.left))" y1="\#(f(y))" x2="\#(f(Chart.width - Chart.right))" y2="\#(f(y))"/>"#
            svg += #"<text class="ylabel" x="\#(f(Chart.left - 6))" y="\#(f(y + 4))">\#(count(scaleMax * fraction))</text>"#
        }
        for (index, value) in histogram.counts.enumerated() {
            let height = plotHeight * Double(value) / scaleMax
            let x = Chart.left + Double(index) * barWidth
            let low = histogram.edge(index), high = histogram.edge(index + 1)
            var range = "\(number(low, decimals)) to \(number(high, decimals)) \(histogram.unit)"
            if index == 0 && histogram.belowRange > 0 { range += ", and below" }
            if index == histogram.counts.count - 1 && histogram.aboveRange > 0 { range += ", and above" }
            svg += #"<rect class="bar" data-bin="\#(index)" data-count="\#(value)" x="\#(f(x + 0.5))" y="\#(f(Chart.top + plotHeight - height))" width="\#(f(max(barWidth - 1, 1)))" height="\#(f(height))">"#
            svg += "<title>\(escape(range)): \(value) file\(value == 1 ? "" : "s")</title></rect>"
        }
        // x axis labels: about 6 of the edges.
        let step = max(1, Int((Double(histogram.counts.count) / 6).rounded(.up)))
        for index in stride(from: 0, through: histogram.counts.count, by: step) {
            let x = Chart.left + Double(index) * barWidth
            var label = number(histogram.edge(index), decimals)
            if index == 0 && histogram.belowRange > 0 { label = "≤" + label }
            if index == histogram.counts.count && histogram.aboveRange > 0 { label = "≥" + label }
            svg += #"<line class="tick" x1="\#(f(x))" y1="\#(f(Chart.top + plotHeight))" x2="\#(f(x))" y2="\#(f(Chart.top + plotHeight + 4))"/>"#
            svg += #"<text class="xlabel" x="\#(f(x))" y="\#(f(Chart.top + plotHeight + 16))">\#(escape(label))</text>"#
        }
        svg += #"<line class="axis" x1="\#(f(Chart.left))" y1="\#(f(Chart.top + plotHeight))" x2="\#(f(Chart.width - Chart.right))" y2="\#(f(Chart.top + plotHeight))"/>"#
        svg += #"<text class="unit" x="\#(f(Chart.left + plotWidth / 2))" y="\#(f(Chart.height - 6))">\#(escape(histogram.unit)) (files per bin)</text>"#
        svg += "</svg>"
        return svg
    }

    /// Labelled horizontal bars (counts of categories), largest first as given.
    static func svgBars(_ items: [(label: String, count: Int)], id: String) -> String {
        let rowHeight = 22.0
        let labelWidth = 170.0
        let width = Chart.width
        let height = Double(items.count) * rowHeight + 8
        let maximum = Double(max(1, items.map(\.count).max() ?? 1))
        let barSpace = width - labelWidth - 70
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" id="\(id)" class="chart" role="img" \
            viewBox="0 0 \(f(width)) \(f(height))" width="\(f(width))" height="\(f(height))">
            """
        for (row, item) in items.enumerated() {
            let y = 4 + Double(row) * rowHeight
            let barWidth = max(1, barSpace * Double(item.count) / maximum)
            let label = item.label.count > 26 ? String(item.label.prefix(25)) + "…" : item.label
            svg += #"<text class="blabel" x="\#(f(labelWidth - 8))" y="\#(f(y + 15))">\#(escape(label))</text>"#
            svg += #"<rect class="bar" data-count="\#(item.count)" x="\#(f(labelWidth))" y="\#(f(y + 3))" width="\#(f(barWidth))" height="\#(f(rowHeight - 6))">"#
            svg += "<title>\(escape(item.label)): \(item.count)</title></rect>"
            svg += #"<text class="bvalue" x="\#(f(labelWidth + barWidth + 6))" y="\#(f(y + 15))">\#(item.count)</text>"#
        }
        svg += "</svg>"
        return svg
    }

    /// The smallest of 2, 4, 6, 8, 10 × 10ⁿ (n ≥ 0) at or above `value`, so that half of it
    /// is a whole number for the middle grid line.
    static func niceCeiling(_ value: Double) -> Double {
        var magnitude = 1.0
        while true {
            for factor in [2.0, 4, 6, 8, 10] where factor * magnitude >= value { return factor * magnitude }
            magnitude *= 10
        }
    }

    /// A coordinate with at most one decimal.
    static func f(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    /// A count label (no decimals; thousands as "k").
    static func count(_ value: Double) -> String {
        value >= 10_000 ? String(format: "%.0fk", value / 1000) : String(Int(value.rounded()))
    }

    /// A value with `decimals` decimals, minus sign as U+2212.
    static func number(_ value: Double, _ decimals: Int) -> String {
        let text = String(format: "%.\(decimals)f", value)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }
}
