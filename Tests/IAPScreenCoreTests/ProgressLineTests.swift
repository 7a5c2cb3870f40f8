import Testing

@testable import IAPScreenCore

@Suite("The progress line's words")
struct ProgressLineTests {
    @Test("percent of the bytes, orders so far, orders per second, and the time left at the rate so far")
    func text() {
        let line = ProgressLine.text(
            done: 250_000_000, total: 1_000_000_000, count: 240_000, unit: "orders", elapsed: 10)
        #expect(line == "25.0% of 1.0 GB · 240,000 orders · 24,000 orders/s · 0:30 left")
    }

    @Test("no time left is guessed before there is a rate to guess from; a total of 0 bytes is 0%")
    func early() {
        #expect(
            ProgressLine.text(done: 10, total: 1_000_000, count: 3, unit: "orders", elapsed: 0.2)
                == "0.0% of 1.0 MB · 3 orders · 15 orders/s")
        #expect(
            ProgressLine.text(done: 0, total: 0, count: 0, unit: "orders", elapsed: 5).hasPrefix(
                "0.0% of 0 B · 0 orders"))
    }

    @Test("sizes, counts and durations as a person reads them")
    func units() {
        #expect(ProgressLine.size(999) == "999 B")
        #expect(ProgressLine.size(812_300_000) == "812 MB")
        #expect(ProgressLine.grouped(1_234_567) == "1,234,567")
        #expect(ProgressLine.grouped(-1000) == "-1,000")
        #expect(ProgressLine.duration(35) == "0:35")
        #expect(ProgressLine.duration(3723) == "1:02:03")
        #expect(ProgressLine.duration(.infinity) == "99:59:59")
    }
}
