/// Calendar days as whole numbers (days since 1970-01-01), for matching by day: a UTC day,
/// or the US Pacific day that Apple's reports use for Americas agreements
/// (reference/store-reports.md §4.1: "PST/PDT").
public enum CalendarDay {
    /// The UTC day of an instant.
    public static func utc(_ t: Timestamp) -> Int {
        Int(floorDiv(t.millis, 86_400_000))
    }

    /// The America/Los_Angeles day of an instant: UTC−8, or UTC−7 while daylight saving time
    /// is in force (since 2007 from the second Sunday of March, 02:00 local, to the first
    /// Sunday of November, 02:00 local; 1987–2006 the first Sunday of April to the last
    /// Sunday of October).
    public static func pacific(_ t: Timestamp) -> Int {
        Int(floorDiv(t.millis + Int64(pacificOffsetMinutes(t)) * 60_000, 86_400_000))
    }

    /// −420 (PDT) or −480 (PST).
    public static func pacificOffsetMinutes(_ t: Timestamp) -> Int {
        let year = civil(utc(t)).year
        let (start, end): (Int, Int)
        if year >= 2007 {
            start = nthSunday(2, month: 3, year: year)
            end = nthSunday(1, month: 11, year: year)
        } else {
            start = nthSunday(1, month: 4, year: year)
            end = lastSunday(month: 10, year: year)
        }
        // 02:00 PST is 10:00 UTC; 02:00 PDT is 09:00 UTC.
        let dstStart = Int64(start) * 86_400_000 + 10 * 3_600_000
        let dstEnd = Int64(end) * 86_400_000 + 9 * 3_600_000
        return t.millis >= dstStart && t.millis < dstEnd ? -420 : -480
    }

    /// `YYYY-MM-DD`.
    public static func text(_ day: Int) -> String {
        let (y, m, d) = civil(day)
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// The day a valid date names; nil for a month or day that does not exist.
    public static func from(year: Int, month: Int, day: Int) -> Int? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= Timestamp.daysIn(month: month, year: year)
        else { return nil }
        return Timestamp.daysFromCivil(year: year, month: month, day: day)
    }

    /// A bare `YYYY-MM-DD`.
    public static func parse(_ text: String) -> Int? {
        Timestamp.parseDay(text).map { utc($0.lowerBound) }
    }

    public static func civil(_ day: Int) -> (year: Int, month: Int, day: Int) {
        Timestamp.civilFromDays(Int64(day))
    }

    /// 0 = Sunday.
    static func weekday(_ day: Int) -> Int {
        ((day % 7) + 11) % 7
    }

    static func nthSunday(_ n: Int, month: Int, year: Int) -> Int {
        let first = Timestamp.daysFromCivil(year: year, month: month, day: 1)
        return first + (7 - weekday(first)) % 7 + 7 * (n - 1)
    }

    static func lastSunday(month: Int, year: Int) -> Int {
        let last = Timestamp.daysFromCivil(year: year, month: month, day: Timestamp.daysIn(month: month, year: year))
        return last - weekday(last)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }
}
