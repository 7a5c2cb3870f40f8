import Testing

@testable import ReceiptFormats

@Suite("Decimal text as stores write numbers")
struct DecimalTextTests {
    @Test("whole numbers, fractions and exponents truncate toward zero, saying whether a fraction was dropped")
    func readings() {
        let cases: [(String, DecimalText.Reading)] = [
            ("12", .value(12, fractional: false)), ("-3", .value(-3, fractional: false)),
            ("1698148900000.123", .value(1_698_148_900_000, fractional: true)),
            ("1698148900000.000", .value(1_698_148_900_000, fractional: false)),
            ("1.6e12", .value(1_600_000_000_000, fractional: false)), ("16E-1", .value(1, fractional: true)),
            ("-16e-1", .value(-1, fractional: true)), ("1e+2", .value(100, fractional: false)),
            ("00012", .value(12, fractional: false)), ("0e9999", .value(0, fractional: false)),
            ("1e-99999", .value(0, fractional: true)), ("1e99999", .outOfRange),
            ("9223372036854775807", .value(Int64.max, fractional: false)),
            ("-9223372036854775808", .value(Int64.min, fractional: false)),
            ("9223372036854775808", .outOfRange), ("-9223372036854775809", .outOfRange),
            ("99999999999999999999", .outOfRange), ("1e19", .outOfRange), ("0.5", .value(0, fractional: true)),
            ("", .notANumber), ("-", .notANumber), ("1.", .notANumber), (".5", .notANumber), ("1e", .notANumber),
            ("12a", .notANumber), (" 1", .notANumber), ("1 ", .notANumber), ("+1", .notANumber),
            ("١٢", .notANumber),
        ]
        for (text, reading) in cases {
            #expect(DecimalText.read(text) == reading, "\(text)")
        }
    }
}
