/// An instant in UTC, kept in milliseconds since the Unix epoch, and whether the source
/// carried sub-second precision (iapscreen prints `.sss` only then).
///
/// Accepted text forms (docs/inputs.md and the receipt formats):
///   `YYYY-MM-DD[T ]HH:MM:SS[.f…][Z|±HH[:MM]|±HHMM]`, optionally followed by ` Etc/GMT`,
///   ` GMT` or ` UTC` (verifyReceipt, iOS 6); no zone means UTC;
///   epoch seconds, or epoch milliseconds (integers ≥ 10¹¹).
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var millis: Int64
    public var hasMilliseconds: Bool

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the range we read and print.
    public static let minMillis: Int64 = -62_135_596_800_000
    public static let maxMillis: Int64 = 253_402_300_799_999

    public init?(millis: Int64, hasMilliseconds: Bool = true) {
        guard millis >= Timestamp.minMillis, millis <= Timestamp.maxMillis else { return nil }
        self.millis = millis
        self.hasMilliseconds = hasMilliseconds
    }

    /// Any millisecond count, pulled into the supported range (for clocks, never for input).
    public init(clampingMillis millis: Int64, hasMilliseconds: Bool = true) {
        self.millis = min(max(millis, Timestamp.minMillis), Timestamp.maxMillis)
        self.hasMilliseconds = hasMilliseconds
    }

    public init?(seconds: Int64) {
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        self.init(millis: ms, hasMilliseconds: false)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.millis < b.millis }
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.millis == b.millis }
    public func hash(into h: inout Hasher) { h.combine(millis) }

    /// Adds whole days (negative to subtract); nil past the supported range.
    public func adding(days: Int64) -> Timestamp? {
        let (delta, o1) = days.multipliedReportingOverflow(by: 86_400_000)
        let (sum, o2) = millis.addingReportingOverflow(delta)
        guard !o1, !o2 else { return nil }
        return Timestamp(millis: sum, hasMilliseconds: hasMilliseconds)
    }

    // MARK: Parsing

    /// Parses any accepted form; nil when the text is none of them or out of range.
    public static func parse(_ text: String) -> Timestamp? {
        var text = text
        return text.withUTF8 { parse(bytes: UnsafeRawBufferPointer($0)) }
    }

    public static func parse<Bytes: Collection<UInt8>>(bytes: Bytes) -> Timestamp? {
        if let direct = bytes.withContiguousStorageIfAvailable({ parse(bytes: UnsafeRawBufferPointer($0)) }) {
            return direct
        }
        return Array(bytes).withUnsafeBytes { parse(bytes: $0) }
    }

    public static func parse(bytes: UnsafeRawBufferPointer) -> Timestamp? {
        var s = bytes[...]
        while let f = s.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
        while let l = s.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
        guard !s.isEmpty else { return nil }
        if s.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            || (s.first == 0x2D && s.count > 1 && s.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }))
        {
            return parseEpoch(s)
        }
        return parseCalendar(s)
    }

    /// Epoch seconds, or milliseconds when |value| ≥ 10¹¹.
    public static func fromEpochNumber(_ value: Int64) -> Timestamp? {
        if value >= 100_000_000_000 || value <= -100_000_000_000 {
            return Timestamp(millis: value, hasMilliseconds: true)
        }
        return Timestamp(seconds: value)
    }

    private static func parseEpoch(_ s: Slice<UnsafeRawBufferPointer>) -> Timestamp? {
        var negative = false
        var digits = s
        if digits.first == 0x2D {
            negative = true
            digits = digits.dropFirst()
        }
        guard digits.count <= 18 else { return nil }
        var v: Int64 = 0
        for d in digits { v = v * 10 + Int64(d - 0x30) }
        return fromEpochNumber(negative ? -v : v)
    }

    private static func parseCalendar(_ s: Slice<UnsafeRawBufferPointer>) -> Timestamp? {
        var i = s.startIndex
        let end = s.endIndex
        func digits(_ n: Int) -> Int? {
            guard s.distance(from: i, to: end) >= n else { return nil }
            var v = 0
            for _ in 0..<n {
                let c = s[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
                i += 1
            }
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < end, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else {
            return nil
        }
        guard i < end, s[i] == 0x54 || s[i] == 0x20 || s[i] == 0x74 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else {
            return nil
        }
        var fractionMillis = 0
        var hasFraction = false
        if i < end, s[i] == 0x2E || s[i] == 0x2C {
            i += 1
            var count = 0
            while i < end, s[i] >= 0x30, s[i] <= 0x39 {
                if count < 3 { fractionMillis = fractionMillis * 10 + Int(s[i] - 0x30) }
                count += 1
                i += 1
                guard count <= 12 else { return nil }
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { fractionMillis *= 10 }
            hasFraction = true
        }
        var offsetMinutes = 0
        if i < end {
            switch s[i] {
            case 0x5A, 0x7A:  // Z
                i += 1
            case 0x2B, 0x2D:  // + or -
                let sign = s[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = digits(2), oh <= 23 else { return nil }
                var om = 0
                if i < end, s[i] == 0x3A {
                    i += 1
                    guard let m = digits(2) else { return nil }
                    om = m
                } else if i < end, s[i] >= 0x30, s[i] <= 0x39 {
                    guard let m = digits(2) else { return nil }
                    om = m
                }
                guard om <= 59 else { return nil }
                offsetMinutes = sign * (oh * 60 + om)
            default:
                break
            }
        }
        // A named UTC zone after a space: " Etc/GMT", " GMT", " UTC".
        if i < end {
            let rest = String(decoding: s[i...], as: UTF8.self)
            guard rest == " Etc/GMT" || rest == " GMT" || rest == " UTC" || rest == " Etc/UTC" else { return nil }
        }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let secs = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetMinutes * 60)
        return Timestamp(millis: secs * 1000 + Int64(fractionMillis), hasMilliseconds: hasFraction)
    }

    /// A bare `YYYY-MM-DD`: the first and last millisecond of that UTC day.
    public static func parseDay(_ text: String) -> ClosedRange<Timestamp>? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for k in r {
                guard b[k] >= 0x30, b[k] <= 0x39 else { return nil }
                v = v * 10 + Int(b[k] - 0x30)
            }
            return v
        }
        guard let y = num(0..<4), let m = num(5..<7), let d = num(8..<10),
            (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y)
        else { return nil }
        let start = Int64(daysFromCivil(year: y, month: m, day: d)) * 86_400_000
        guard let a = Timestamp(millis: start, hasMilliseconds: false),
            let z = Timestamp(millis: start + 86_399_999, hasMilliseconds: false)
        else { return nil }
        return a...z
    }

    // MARK: Printing

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.sss` only when the source had milliseconds.
    public var description: String { iso8601 }

    public var iso8601: String {
        let (days, msOfDay) = floorDivide(millis, 86_400_000)
        let (y, m, d) = Timestamp.civilFromDays(days)
        let secOfDay = Int(msOfDay / 1000)
        let ms = Int(msOfDay % 1000)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func put(_ v: Int, _ width: Int) {
            var div = 1
            for _ in 1..<width { div *= 10 }
            var v = v
            while div > 0 {
                out.append(UInt8(0x30 + v / div))
                v %= div
                div /= 10
            }
        }
        put(y, 4)
        out.append(0x2D)
        put(m, 2)
        out.append(0x2D)
        put(d, 2)
        out.append(0x54)
        put(secOfDay / 3600, 2)
        out.append(0x3A)
        put(secOfDay / 60 % 60, 2)
        out.append(0x3A)
        put(secOfDay % 60, 2)
        if hasMilliseconds {
            out.append(0x2E)
            put(ms, 3)
        }
        out.append(0x5A)
        return String(decoding: out, as: UTF8.self)
    }

    /// `YYYY-MM-DD` of the UTC day, shifted by `offsetMinutes` first (for other calendars).
    public func day(offsetMinutes: Int = 0) -> String {
        let (days, _) = floorDivide(millis + Int64(offsetMinutes) * 60_000, 86_400_000)
        let (y, m, d) = Timestamp.civilFromDays(days)
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    // MARK: Calendar arithmetic (proleptic Gregorian; H. Hinnant's algorithms)

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int64) -> (Int, Int, Int) {
        let z = Int(z0) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        var q = a / b
        var r = a % b
        if r < 0 {
            q -= 1
            r += b
        }
        return (q, r)
    }
}
