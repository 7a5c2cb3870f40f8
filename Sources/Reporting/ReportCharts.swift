import IAPBasics
import Screening

/// The three charts of report.html, drawn as inline SVG from counts kept as the reports go
/// by: findings per rule and severity, flagged orders per day, money at risk per product.
/// Each chart is followed by its numbers as text, so it reads without the picture (and in
/// print, and to a screen reader). Memory stays bounded: past `maxProducts` distinct
/// products, the rest are summed as "other products".
public struct ReportCharts: Sendable {
    /// Findings that are not exempted (as summary.json's `by_rule`), per rule and severity.
    public private(set) var byRuleSeverity: [String: [Severity: Int]] = [:]
    /// Flagged orders per UTC day of `created_at` (days since 1970-01-01).
    public private(set) var flaggedPerDay: [Int64: Int] = [:]
    /// Flagged orders and their amounts per product and currency.
    public private(set) var atRiskPerProduct: [ProductKey: (orders: Int, amount: DecimalAmount)] = [:]
    let maxProducts: Int

    public struct ProductKey: Hashable, Sendable {
        /// nil: the products past the cap, summed.
        public var product: String?
        public var currency: String
    }

    public init(maxProducts: Int = 2000) {
        self.maxProducts = maxProducts
    }

    public mutating func add(_ r: OrderReport) {
        for f in r.findings where f.exempted == nil {
            byRuleSeverity[f.rule, default: [:]][f.severity, default: 0] += 1
        }
        guard r.isFlagged else { return }
        if let at = r.createdAt {
            flaggedPerDay[at.millis >= 0 ? at.millis / 86_400_000 : (at.millis + 1) / 86_400_000 - 1, default: 0] += 1
        }
        if let currency = r.currency, let amount = r.amount.flatMap(DecimalAmount.init) {
            var key = ProductKey(product: r.productID ?? "(no product)", currency: currency)
            if atRiskPerProduct[key] == nil, atRiskPerProduct.count >= maxProducts { key.product = nil }
            let old = atRiskPerProduct[key] ?? (0, .zero)
            atRiskPerProduct[key] = (old.orders + 1, old.amount + amount)
        }
    }

    // MARK: Drawing

    static let width = 640
    static let severityColors: [Severity: String] = [
        .critical: "#b00020", .high: "#d35400", .medium: "#b7950b", .low: "#2e86c1", .info: "#7f8c8d",
    ]

    /// All three charts, each with its numbers; `legend` says what each rule flags.
    public func html(legend: RuleLegend = RuleLegend()) -> String {
        "<div class=\"charts\">" + rulesChart(legend) + daysChart() + productsChart() + "</div>\n"
    }

    /// A horizontal bar: label on the left, segments, the value written after the bar.
    struct Bar {
        var label: String
        var segments: [(value: Double, color: String, title: String)]
        var valueText: String
    }

    /// An `<svg>` element `height` high with a title for screen readers.
    static func svgOpen(height: Int, title: String) -> String {
        "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\">"
            + "<title>\(HTMLEscaping.escape(title))</title>"
    }

    /// SVG text at (x, y); `anchor` start, middle or end.
    static func svgText(_ x: Double, _ y: Double, _ text: String, anchor: String = "start", cls: String = "value")
        -> String
    {
        "<text x=\"\(fmt(x))\" y=\"\(fmt(y))\" text-anchor=\"\(anchor)\" class=\"\(cls)\">\(HTMLEscaping.escape(text))</text>"
    }

    /// A filled rectangle with a tooltip.
    static func svgRect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, title: String) -> String {
        "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" fill=\"\(fill)\">"
            + "<title>\(HTMLEscaping.escape(title))</title></rect>"
    }

    /// Horizontal bars, one per line; `scale` is the value of a full-width bar.
    static func horizontalBars(_ bars: [Bar], scale: Double, title: String) -> String {
        let rowHeight = 22.0
        let labelWidth = 200.0
        let barSpace = 330.0
        var svg = svgOpen(height: bars.count * 22 + 6, title: title)
        for (i, bar) in bars.enumerated() {
            let y = Double(i) * rowHeight + 3
            svg += svgText(labelWidth - 8, y + 15, clipped(bar.label, 30), anchor: "end", cls: "label")
            var x = labelWidth
            for s in bar.segments where s.value > 0 {
                let w = max(1, barSpace * s.value / max(scale, 1e-9))
                svg += svgRect(x, y + 2, w, rowHeight - 6, fill: s.color, title: s.title)
                x += w
            }
            svg += svgText(x + 6, y + 15, bar.valueText)
        }
        return svg + "</svg>"
    }

    /// Findings per rule, stacked by severity; then the same as a table, with what each rule flags.
    func rulesChart(_ legend: RuleLegend) -> String {
        let e = HTMLEscaping.escape
        var out =
            "<figure class=\"chart-box\" id=\"chart-rules\"><figcaption>Findings per rule and severity (not exempted)</figcaption>"
        var rules: [(rule: String, counts: [Severity: Int], total: Int)] = []
        for (rule, counts) in byRuleSeverity {
            let total: Int = counts.values.reduce(0, +)
            rules.append((rule, counts, total))
        }
        rules.sort { $0.total != $1.total ? $0.total > $1.total : $0.rule < $1.rule }
        guard let top = rules.first?.total, top > 0 else { return out + "<p class=\"empty\">No findings.</p></figure>" }
        let severities = Severity.allCases.reversed().filter { s in rules.contains { $0.counts[s] != nil } }
        out +=
            "<div class=\"chart-body\"><div class=\"chart-draw\"><p class=\"legend\">"
            + severities.map { "<span class=\"swatch sev-\($0.name)\"></span>\($0.name)" }.joined(separator: " ")
            + "</p>"
        let bars = rules.map { r -> Bar in
            let segments = severities.map { s -> (value: Double, color: String, title: String) in
                let n = r.counts[s] ?? 0
                return (Double(n), ReportCharts.severityColors[s] ?? "#888", "\(r.rule), \(s.name): \(n)")
            }
            return Bar(label: r.rule, segments: segments, valueText: String(r.total))
        }
        out += ReportCharts.horizontalBars(bars, scale: Double(top), title: "Findings per rule and severity")
        out +=
            "</div><table class=\"numbers\"><thead><tr><th>rule</th><th>what it flags</th>"
            + severities.map { "<th>\($0.name)</th>" }.joined()
            + "<th>total</th></tr></thead><tbody>"
        for r in rules {
            out +=
                "<tr><td>\(e(r.rule))</td><td class=\"about\">\(e(legend.sentence(r.rule) ?? ""))</td>"
                + severities.map { "<td class=\"n\">\(r.counts[$0] ?? 0)</td>" }.joined()
                + "<td class=\"n\">\(r.total)</td></tr>"
        }
        return out + "</tbody></table></div></figure>"
    }

    /// Flagged orders per day: the last `days` calendar days up to the latest, as columns.
    func daysChart(days: Int64 = 62) -> String {
        ReportCharts.perDayChart(
            flaggedPerDay, id: "chart-days", caption: "Flagged orders per day (UTC, by credit time)",
            title: "Flagged orders per day", what: "flagged", counted: "flagged orders",
            empty: "No flagged orders.", days: days)
    }

    /// Counts per UTC day (days since 1970-01-01) as columns: the last `days` days up to the
    /// latest drawn, every day listed beside them. A column's tooltip says "`n` `what`", the
    /// note on days not drawn counts `counted`.
    public static func perDayChart(
        _ perDay: [Int64: Int], id: String, caption: String, title: String, what: String,
        counted: String, empty: String, days: Int64 = 62
    ) -> String {
        var out = "<figure class=\"chart-box\" id=\"\(id)\"><figcaption>\(HTMLEscaping.escape(caption))</figcaption>"
        guard let last = perDay.keys.max() else {
            return out + "<p class=\"empty\">\(HTMLEscaping.escape(empty))</p></figure>"
        }
        let first = max(perDay.keys.min() ?? last, last - days + 1)
        let shown = Array(first...last)
        let top = shown.map { perDay[$0] ?? 0 }.max() ?? 1
        let plotTop = 18.0
        let plotHeight = 150.0
        let left = 40.0
        let base = plotTop + plotHeight
        let slot = (Double(ReportCharts.width) - left - 10) / Double(shown.count)
        var svg = ReportCharts.svgOpen(height: Int(base) + 22, title: title)
        svg +=
            "<line x1=\"\(Int(left))\" y1=\"\(Int(base))\" x2=\"\(ReportCharts.width - 10)\" y2=\"\(Int(base))\" stroke=\"#999\"/>"
        svg += ReportCharts.svgText(left - 4, plotTop + 4, String(top), anchor: "end", cls: "axis")
        svg += ReportCharts.svgText(left - 4, base, "0", anchor: "end", cls: "axis")
        let labelEvery = max(1, Int((Double(shown.count) / 8).rounded(.up)))
        for (i, day) in shown.enumerated() {
            let n = perDay[day] ?? 0
            let x = left + Double(i) * slot
            let h = plotHeight * Double(n) / Double(max(top, 1))
            let name = ReportCharts.dayName(day)
            if n > 0 {
                svg += ReportCharts.svgRect(
                    x + slot * 0.1, base - h, slot * 0.8, h, fill: "#c0392b", title: "\(name): \(n) \(what)")
                if slot >= 16 { svg += ReportCharts.svgText(x + slot / 2, base - h - 3, String(n), anchor: "middle") }
            }
            if i % labelEvery == 0 {
                svg += ReportCharts.svgText(
                    x + slot / 2, base + 15, String(name.dropFirst(5)), anchor: "middle", cls: "axis")
            }
        }
        out += "<div class=\"chart-body\"><div class=\"chart-draw\">" + svg + "</svg>"
        let earlier = perDay.filter { $0.key < first }
        if !earlier.isEmpty {
            out +=
                "<p class=\"note\">\(earlier.values.reduce(0, +)) \(counted) on \(earlier.count) earlier days are not drawn; "
                + "they are in the list below and in the table.</p>"
        }
        out += "</div><ul class=\"numbers days\">"
        for (day, n) in perDay.sorted(by: { $0.key > $1.key }).prefix(400) {
            out += "<li><span>\(ReportCharts.dayName(day))</span> <b>\(n)</b></li>"
        }
        if perDay.count > 400 { out += "<li>… and \(perDay.count - 400) earlier days</li>" }
        return out + "</ul></div></figure>"
    }

    /// Money at risk per product, one scale per currency (amounts in different currencies
    /// are never compared); the largest products drawn, every product listed.
    func productsChart(drawn: Int = 12, listed: Int = 200) -> String {
        let e = HTMLEscaping.escape
        var out =
            "<figure class=\"chart-box\" id=\"chart-products\"><figcaption>Money at risk per product (flagged orders)</figcaption>"
        let byCurrency = Dictionary(grouping: atRiskPerProduct, by: \.key.currency).sorted { $0.key < $1.key }
        guard !byCurrency.isEmpty else { return out + "<p class=\"empty\">No money at risk.</p></figure>" }
        out += "<div class=\"chart-body\"><div class=\"chart-draw\">"
        var table =
            "</div><table class=\"numbers\"><thead><tr><th>product</th><th>currency</th><th>flagged orders</th><th>at risk</th></tr></thead><tbody>"
        for (currency, entries) in byCurrency {
            let sorted = entries.sorted { a, b in
                let x = ReportCharts.value(a.value.amount)
                let y = ReportCharts.value(b.value.amount)
                return x != y ? x > y : (a.key.product ?? "\u{10FFFF}") < (b.key.product ?? "\u{10FFFF}")
            }
            let top = sorted.prefix(drawn)
            let scale = top.map { ReportCharts.value($0.value.amount) }.max() ?? 1
            out += "<p class=\"currency\">\(e(currency))</p>"
            out += ReportCharts.horizontalBars(
                top.map { entry in
                    let label = entry.key.product ?? "other products"
                    let text = "\(currency) \(entry.value.amount) (\(entry.value.orders))"
                    return Bar(
                        label: label,
                        segments: [(ReportCharts.value(entry.value.amount), "#8e44ad", "\(label): \(text)")],
                        valueText: text)
                }, scale: scale, title: "Money at risk per product in \(currency)")
            if sorted.count > drawn {
                out +=
                    "<p class=\"note\">\(sorted.count - drawn) smaller products in \(e(currency)) are listed below, not drawn.</p>"
            }
            for entry in sorted.prefix(listed) {
                table +=
                    "<tr><td>\(e(entry.key.product ?? "other products"))</td><td>\(e(currency))</td>"
                    + "<td class=\"n\">\(entry.value.orders)</td><td class=\"n\">\(e(entry.value.amount.description))</td></tr>"
            }
            if sorted.count > listed {
                let rest = sorted.dropFirst(listed)
                let amount = rest.reduce(DecimalAmount.zero) { $0 + $1.value.amount }
                table +=
                    "<tr><td>\(rest.count) more products</td><td>\(e(currency))</td>"
                    + "<td class=\"n\">\(rest.map(\.value.orders).reduce(0, +))</td><td class=\"n\">\(e(amount.description))</td></tr>"
            }
        }
        return out + table + "</tbody></table></div></figure>"
    }

    static func dayName(_ day: Int64) -> String {
        Timestamp(clampingMillis: day * 86_400_000).day()
    }

    static func value(_ a: DecimalAmount) -> Double { Double(a.description) ?? 0 }

    static func clipped(_ s: String, _ n: Int) -> String { s.count > n ? String(s.prefix(n - 1)) + "…" : s }

    static func fmt(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
