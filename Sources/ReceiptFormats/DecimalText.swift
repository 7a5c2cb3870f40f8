// Shared by the verifyReceipt, JWS and Google purchase decoders (the file name follows
// the ownership of the tree, not the scope).

/// Reads a decimal number as written (`12`, `-3`, `1698148900000.123`, `1.6e12`) into an
/// Int64 truncated toward zero, telling whether a non-zero fraction was dropped.
enum DecimalText {
    enum Reading: Equatable {
        case value(Int64, fractional: Bool)
        case outOfRange
        case notANumber
    }

    static func read(_ text: String) -> Reading {
        var text = text
        return text.withUTF8 { read(UnsafeRawBufferPointer($0)) }
    }

    /// Read in place: a receipt's dates and counts are read by the million.
    static func read(_ b: UnsafeRawBufferPointer) -> Reading {
        var i = 0
        func digitRun() -> Range<Int> {
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return start..<i
        }
        var negative = false
        if i < b.count, b[i] == 0x2D {
            negative = true
            i += 1
        }
        let whole = digitRun()
        guard !whole.isEmpty else { return .notANumber }
        var fraction = i..<i
        if i < b.count, b[i] == 0x2E {
            i += 1
            fraction = digitRun()
            guard !fraction.isEmpty else { return .notANumber }
        }
        var exponent = 0
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            i += 1
            var exponentNegative = false
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D {
                exponentNegative = b[i] == 0x2D
                i += 1
            }
            let e = digitRun()
            guard !e.isEmpty else { return .notANumber }
            // Four digits already move the point past any Int64.
            guard e.count <= 4 else { return exponentNegative ? .value(0, fractional: true) : .outOfRange }
            for k in e { exponent = exponent * 10 + Int(b[k] - 0x30) }
            if exponentNegative { exponent = -exponent }
        }
        guard i == b.count else { return .notANumber }

        // The whole and fraction digits as one run, without joining them.
        let count = whole.count + fraction.count
        func digit(_ k: Int) -> UInt8 {
            k < whole.count ? b[whole.lowerBound + k] : b[fraction.lowerBound + (k - whole.count)]
        }
        let point = whole.count + exponent  // digits before the decimal point
        var leading = 0
        while leading < count, digit(leading) == 0x30 { leading += 1 }
        let fractionStart = min(max(point, 0), count)
        let fractional = (fractionStart..<count).contains { digit($0) != 0x30 }
        var magnitude: UInt64 = 0
        var k = leading
        while k < point {
            let d = k < count ? UInt64(digit(k) - 0x30) : 0
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(d)
            guard !o1, !o2 else { return .outOfRange }
            magnitude = sum
            k += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return .outOfRange }
            return .value(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude), fractional: fractional)
        }
        guard magnitude <= UInt64(Int64.max) else { return .outOfRange }
        return .value(Int64(magnitude), fractional: fractional)
    }
}
