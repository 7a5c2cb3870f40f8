import Ledger

/// Times as people read them: §7 text with a space between date and time (so a narrow cell
/// wraps there), the exact text kept in `datetime`; claims with the minutes they have left.
extension HTMLWriter {
    /// A §7 time, or a dash when there is none.
    mutating func time(_ text: String?) {
        guard let text, !text.isEmpty else {
            element("span", [.class("none")], text: "—")
            return
        }
        element("time", [.attr("datetime", text)], text: TimeView.readable(text))
    }

    /// A §7 time to the minute, for a table cell: the exact text in `datetime` and `title`.
    mutating func shortTime(_ text: String?) {
        guard let text, !text.isEmpty else {
            element("span", [.class("none")], text: "—")
            return
        }
        element("time", [.attr("datetime", text), .attr("title", text)], text: TimeView.short(text))
    }

    /// The end of a claim (ms) and how long it has left at `now`.
    mutating func claimEnd(_ until: Int64, now: Int64) {
        time(DeskTime.text(until))
        element("span", [.class("left")], text: " (" + TimeView.left(until - now) + ")")
    }
}

enum TimeView {
    /// `2024-03-01T01:26:11Z` as `2024-03-01 01:26:11Z`; any other text as it is.
    static func readable(_ text: String) -> String {
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10 else { return text }
        return parts[0] + " " + parts[1]
    }

    /// `2024-03-01T01:26:11Z` as `2024-03-01 01:26`; any other text as `readable` gives it.
    static func short(_ text: String) -> String {
        let r = readable(text)
        guard r != text, r.utf8.count >= 16 else { return r }
        return String(r.prefix(16))
    }

    /// `12 min left`, `1 h 5 min left`, `lapsed`.
    static func left(_ millis: Int64) -> String {
        guard millis > 0 else { return "lapsed" }
        let minutes = (millis + 59_999) / 60_000
        if minutes < 60 { return "\(minutes) min left" }
        let rest = minutes % 60
        return rest == 0 ? "\(minutes / 60) h left" : "\(minutes / 60) h \(rest) min left"
    }
}
