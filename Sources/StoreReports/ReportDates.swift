import IAPBasics

/// The date and time forms store reports write.
enum ReportDates {
    /// Apple's `MM/DD/YYYY` (also `M/D/YYYY`).
    static func usDate(_ text: String) -> Int? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 2, parts[1].count <= 2, parts[2].count == 4,
            let m = Int(parts[0]), let d = Int(parts[1]), let y = Int(parts[2])
        else { return nil }
        return CalendarDay.from(year: y, month: m, day: d)
    }

    /// Google's `Order Charged Timestamp` (Unix seconds, or milliseconds, or ISO 8601).
    static func instant(_ text: String) -> Timestamp? {
        Timestamp.parse(text)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Google earnings: `Transaction Date` `Sep 3, 2026` (or `2026-09-03`) and `Transaction
    /// Time` `10:01:02 PDT` (zones PST, PDT, UTC, GMT, or none: UTC) -> the instant.
    static func earnings(date: String, time: String) -> Timestamp? {
        let day: Int
        if let iso = CalendarDay.parse(date) {
            day = iso
        } else {
            let words = date.replacingCommas.split(separator: " ")
            guard words.count == 3, let month = months.firstIndex(of: words[0].prefix(3).lowercased()),
                let d = Int(words[1]), let y = Int(words[2]),
                let parsed = CalendarDay.from(year: y, month: month + 1, day: d)
            else { return nil }
            day = parsed
        }
        let pieces = time.split(separator: " ")
        guard pieces.count <= 2 else { return nil }
        var seconds = 0
        if let clock = pieces.first {
            let hms = clock.split(separator: ":")
            guard hms.count == 3 || hms.count == 2, let h = Int(hms[0]), let m = Int(hms[1]),
                (0...23).contains(h), (0...59).contains(m)
            else { return nil }
            let s = hms.count == 3 ? Int(hms[2]) : 0
            guard let s, (0...60).contains(s) else { return nil }
            seconds = h * 3600 + m * 60 + min(s, 59)
        }
        var offsetMinutes = 0
        if pieces.count == 2 {
            switch pieces[1].uppercased() {
            case "PST": offsetMinutes = -480
            case "PDT": offsetMinutes = -420
            case "UTC", "GMT", "Z": offsetMinutes = 0
            default: return nil
            }
        }
        return Timestamp(
            millis: (Int64(day) * 86_400 + Int64(seconds) - Int64(offsetMinutes) * 60) * 1000, hasMilliseconds: false)
    }
}

extension String {
    fileprivate var replacingCommas: String {
        String(map { $0 == "," ? " " : $0 })
    }
}
