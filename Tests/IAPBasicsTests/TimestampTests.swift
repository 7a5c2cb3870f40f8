import IAPBasics
import Testing

@Suite("Timestamps in every form the contract accepts")
struct TimestampTests {
    @Test("ISO forms with T or space, fractions, Z and offsets read as the same instant")
    func isoForms() throws {
        let utc = try #require(Timestamp.parse("2024-03-01T12:00:00Z"))
        #expect(Timestamp.parse("2024-03-01 12:00:00") == utc)
        #expect(Timestamp.parse("2024-03-01T13:00:00+01:00") == utc)
        #expect(Timestamp.parse("2024-03-01T13:00:00+0100") == utc)
        #expect(Timestamp.parse("2024-03-01 12:00:00+00") == utc)
        #expect(Timestamp.parse("2024-03-01T07:00:00-05") == utc)
        #expect(Timestamp.parse("2024-03-01 12:00:00 Etc/GMT") == utc)
        #expect(utc.iso8601 == "2024-03-01T12:00:00Z")
    }

    @Test("milliseconds are printed only when the source had them")
    func milliseconds() throws {
        let t = try #require(Timestamp.parse("2020-01-01T12:00:00.123456Z"))
        #expect(t.iso8601 == "2020-01-01T12:00:00.123Z")
        #expect(try #require(Timestamp.parse("2020-01-01T12:00:00.5Z")).iso8601 == "2020-01-01T12:00:00.500Z")
    }

    @Test("epoch seconds and epoch milliseconds (from 10^11) are told apart")
    func epochs() throws {
        #expect(Timestamp.parse("1709294400")?.iso8601 == "2024-03-01T12:00:00Z")
        #expect(Timestamp.parse("1709294400000")?.iso8601 == "2024-03-01T12:00:00.000Z")
        #expect(Timestamp.parse("0")?.iso8601 == "1970-01-01T00:00:00Z")
    }

    @Test("nonsense, impossible dates and out-of-range values are rejected")
    func rejects() {
        for bad in [
            "", "yesterday", "2024-02-30T00:00:00Z", "2024-13-01 00:00:00", "2024-01-01T25:00:00Z",
            "2024-01-01T00:00:00+25:00", "2024-01-01T00:00:00 PST", "99999999999999999999",
            "2024-01-01T00:00:00.Z", "2024-01-01",
        ] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("a bare date covers the whole UTC day")
    func bareDay() throws {
        let day = try #require(Timestamp.parseDay("2024-02-29"))
        #expect(day.lowerBound.iso8601 == "2024-02-29T00:00:00Z")
        #expect(day.contains(try #require(Timestamp.parse("2024-02-29T23:59:59.999Z"))))
        #expect(!day.contains(try #require(Timestamp.parse("2024-03-01T00:00:00Z"))))
        #expect(Timestamp.parseDay("2023-02-29") == nil)
    }

    @Test("dates far from the epoch print correctly")
    func calendar() throws {
        #expect(Timestamp.parse("0001-01-01T00:00:00Z")?.iso8601 == "0001-01-01T00:00:00Z")
        #expect(Timestamp.parse("9999-12-31T23:59:59Z")?.iso8601 == "9999-12-31T23:59:59Z")
        #expect(Timestamp.parse("1900-03-01T00:00:00Z")?.day() == "1900-03-01")
        #expect(Timestamp.parse("2024-03-01T02:00:00Z")?.day(offsetMinutes: -480) == "2024-02-29")
    }
}
