/// CSV cells safe to open in a spreadsheet: a cell that starts with `=`, `+`, `-`, `@`,
/// tab or CR gets a leading `'` so it is never run as a formula; then RFC 4180 quoting.
/// Works on the UTF-8 bytes: every byte it looks for is ASCII, so no character is split.
public enum SpreadsheetCSV {
    public static func cell(_ value: String?) -> String {
        guard let value else { return "" }
        let bytes = value.utf8
        let formula: Bool
        switch bytes.first {
        case 0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D: formula = true  // = + - @ tab CR
        default: formula = false
        }
        let quoted = bytes.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        guard formula || quoted else { return value }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        if quoted { out.append(0x22) }
        if formula { out.append(0x27) }
        for b in bytes {
            out.append(b)
            if b == 0x22 { out.append(0x22) }
        }
        if quoted { out.append(0x22) }
        return String(decoding: out, as: UTF8.self)
    }

    public static func row(_ cells: [String?]) -> String {
        cells.map(cell).joined(separator: ",") + "\n"
    }
}
