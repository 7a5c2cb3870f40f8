/// CSV cells safe to open in a spreadsheet: a cell that starts with `=`, `+`, `-`, `@`,
/// tab or CR gets a leading `'` so it is never run as a formula; then RFC 4180 quoting.
/// Works on the UTF-8 bytes: every byte it looks for is ASCII, so no character is split.
public enum SpreadsheetCSV {
    public static func cell(_ value: String?) -> String {
        var out: [UInt8] = []
        write(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func row(_ cells: [String?]) -> String {
        var out: [UInt8] = []
        for (i, cell) in cells.enumerated() {
            if i > 0 { out.append(0x2C) }
            write(cell, to: &out)
        }
        out.append(0x0A)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` as a cell (nothing for nil).
    public static func write(_ value: String?, to out: inout [UInt8]) {
        guard let value else { return }
        let start = out.count
        out.append(contentsOf: value.utf8)
        makeSafe(cellFrom: start, in: &out)
    }

    /// Makes the cell written at the end of `out`, from `start` on, safe. Most cells need
    /// nothing: they are written in place, and only one that does is copied.
    public static func makeSafe(cellFrom start: Int, in out: inout [UInt8]) {
        guard start < out.count else { return }
        let formula: Bool
        switch out[start] {
        case 0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D: formula = true  // = + - @ tab CR
        default: formula = false
        }
        let quoted = out[start...].contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        guard formula || quoted else { return }
        let text = Array(out[start...])
        out.removeSubrange(start...)
        if quoted { out.append(0x22) }
        if formula { out.append(0x27) }
        for b in text {
            out.append(b)
            if b == 0x22 { out.append(0x22) }
        }
        if quoted { out.append(0x22) }
    }
}
