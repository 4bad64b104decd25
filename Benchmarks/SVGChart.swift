import Foundation

/// A bar chart of the ratios, one bar per workload, with a dashed line at 1.0 (C speed),
/// written as plain SVG text so it needs no library.
struct SVGChart {
    let results: [WorkloadResult]
    let title: String

    private let plotHeight = 300.0
    private let top = 70.0
    private let left = 64.0
    private let right = 24.0
    private let labelHeight = 56.0
    private let minimumWidth = 560.0

    /// The SVG document.
    func render() -> String {
        let longestSlug = results.map(\.slug.count).max() ?? 0
        let count = Double(max(results.count, 1))
        // Wide enough for the longest slug under each bar, and for the subtitle.
        let plotWidth = max(max(120.0, Double(longestSlug) * 7.5 + 24) * count, minimumWidth - left - right)
        let slot = plotWidth / count
        let barWidth = min(64.0, slot * 0.5)
        let width = left + plotWidth + right
        let height = top + plotHeight + labelHeight
        let scale = axisMaximum()
        let baseline = top + plotHeight
        func y(_ ratio: Double) -> Double { top + plotHeight * (1 - ratio / scale) }

        var svg = [
            "<svg xmlns='http://www.w3.org/2000/svg' width='\(int(width))' height='\(int(height))' "
                + "viewBox='0 0 \(int(width)) \(int(height))' font-family='sans-serif'>",
            "<rect width='100%' height='100%' fill='white'/>",
            "<text x='\(int(width / 2))' y='26' font-size='15' text-anchor='middle'>\(escape(title))</text>",
            "<text x='\(int(width / 2))' y='46' font-size='12' fill='#555' text-anchor='middle'>"
                + "LiteRecord median / C median, lower is better; green ≤ 1.3, orange ≤ 2</text>",
        ]
        // Grid lines and tick labels.
        let step = tickStep(scale)
        for index in 0...Int((scale / step).rounded()) {
            let tick = Double(index) * step
            svg.append(
                "<line x1='\(int(left))' y1='\(fixed(y(tick)))' x2='\(int(width - right))' "
                    + "y2='\(fixed(y(tick)))' stroke='#e2e2e2'/>")
            svg.append(
                "<text x='\(int(left - 8))' y='\(fixed(y(tick) + 4))' font-size='11' text-anchor='end' "
                    + "fill='#555'>\(Report.format(tick, decimals: step < 1 ? 2 : 0))</text>")
        }
        // Bars, each with its ratio above and its slug and C time below.
        for (index, result) in results.enumerated() {
            let center = left + slot * (Double(index) + 0.5)
            let ratio = result.ratio.isFinite ? result.ratio : 0
            let color = ratio <= 1.3 ? "#4c9a5f" : ratio <= 2 ? "#d89a3a" : "#c8553d"
            svg.append(
                "<rect x='\(fixed(center - barWidth / 2))' y='\(fixed(y(ratio)))' width='\(fixed(barWidth))' "
                    + "height='\(fixed(baseline - y(ratio)))' fill='\(color)'/>")
            svg.append(
                "<text x='\(fixed(center))' y='\(fixed(y(ratio) - 6))' font-size='13' text-anchor='middle'>"
                    + "\(Report.format(result.ratio, decimals: 2))×</text>")
            svg.append(
                "<text x='\(fixed(center))' y='\(fixed(baseline + 20))' font-size='12' text-anchor='middle'>"
                    + "\(escape(result.slug))</text>")
            svg.append(
                "<text x='\(fixed(center))' y='\(fixed(baseline + 37))' font-size='11' fill='#555' "
                    + "text-anchor='middle'>C \(Report.milliseconds(result.c.median)) ms</text>")
        }
        // The axis, and the dashed line at 1.0 drawn over the bars.
        svg.append(
            "<line x1='\(int(left))' y1='\(int(baseline))' x2='\(int(width - right))' y2='\(int(baseline))' "
                + "stroke='#333'/>")
        svg.append(
            "<line x1='\(int(left))' y1='\(fixed(y(1)))' x2='\(int(width - right))' y2='\(fixed(y(1)))' "
                + "stroke='#1f4e9c' stroke-width='1.5' stroke-dasharray='6 4'/>")
        svg.append(
            "<text x='\(int(width - right))' y='\(fixed(y(1) - 5))' font-size='11' fill='#1f4e9c' "
                + "text-anchor='end'>C = 1.0</text>")
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// The top of the y axis: a whole number of ticks above both the largest ratio and 1.0.
    private func axisMaximum() -> Double {
        let largest = results.map(\.ratio).filter(\.isFinite).max() ?? 1
        let target = max(largest, 1) * 1.15
        let step = tickStep(target)
        return (target / step).rounded(.up) * step
    }

    /// A tick spacing giving at most six ticks up to `maximum`: 0.25, 0.5, 1, 2, 5, 10, ...
    private func tickStep(_ maximum: Double) -> Double {
        for step in [0.25, 0.5, 1, 2, 5, 10, 20, 50, 100] where maximum / step <= 6 {
            return step
        }
        return (maximum / 5).rounded(.up)
    }

    private func int(_ value: Double) -> String { String(Int(value.rounded())) }
    private func fixed(_ value: Double) -> String { Report.format(value, decimals: 1) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "'", with: "&apos;")
    }
}
