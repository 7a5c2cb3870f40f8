import IAPBasics
import Testing

@Suite("Calendar days, UTC and Pacific")
struct CalendarDayTests {
    func at(_ text: String) throws -> Timestamp { try #require(Timestamp.parse(text)) }

    @Test("Pacific days follow daylight saving time: PST in winter, PDT from March's second Sunday to November's first")
    func pacific() throws {
        // 2024: DST from 2024-03-10 10:00Z to 2024-11-03 09:00Z.
        #expect(CalendarDay.pacificOffsetMinutes(try at("2024-03-10T09:59:59Z")) == -480)
        #expect(CalendarDay.pacificOffsetMinutes(try at("2024-03-10T10:00:00Z")) == -420)
        #expect(CalendarDay.pacificOffsetMinutes(try at("2024-11-03T08:59:59Z")) == -420)
        #expect(CalendarDay.pacificOffsetMinutes(try at("2024-11-03T09:00:00Z")) == -480)
        // 2006 rules: first Sunday of April.
        #expect(CalendarDay.pacificOffsetMinutes(try at("2006-04-02T10:00:00Z")) == -420)
        #expect(CalendarDay.pacificOffsetMinutes(try at("2006-03-20T10:00:00Z")) == -480)
        // 2024-03-01 07:59 UTC is still February 29 in Los Angeles; 08:00 is March 1.
        #expect(CalendarDay.text(CalendarDay.pacific(try at("2024-03-01T07:59:59Z"))) == "2024-02-29")
        #expect(CalendarDay.text(CalendarDay.pacific(try at("2024-03-01T08:00:00Z"))) == "2024-03-01")
        #expect(CalendarDay.text(CalendarDay.pacific(try at("2024-07-01T06:59:59Z"))) == "2024-06-30")
        #expect(CalendarDay.text(CalendarDay.utc(try at("2024-03-01T07:59:59Z"))) == "2024-03-01")
    }

    @Test("days print and parse as YYYY-MM-DD, and only real dates exist")
    func text() {
        #expect(CalendarDay.parse("2024-02-29").map(CalendarDay.text) == "2024-02-29")
        #expect(CalendarDay.parse("2023-02-29") == nil)
        #expect(CalendarDay.from(year: 2024, month: 13, day: 1) == nil)
        #expect(CalendarDay.from(year: 1970, month: 1, day: 1) == 0)
        #expect(CalendarDay.text(-1) == "1969-12-31")
    }
}
