/// CSV cells safe to open in a spreadsheet: a cell that starts with `=`, `+`, `-`, `@`,
/// tab or CR gets a leading `'` so it is never run as a formula; then RFC 4180 quoting.
public enum SpreadsheetCSV {
    public static func cell(_ value: String?) -> String {
        guard var s = value else { return "" }
        if let first = s.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            s = "'" + s
        }
        // By scalars, not Characters: "\r\n" is one Character, and so is a quote followed by a
        // combining mark; either would slip past a Character comparison and break the quoting.
        guard s.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for c in s.unicodeScalars {
            if c == "\"" { quoted.append("\"") }
            quoted.append(c)
        }
        quoted.append("\"")
        return String(quoted)
    }

    public static func row(_ cells: [String?]) -> String {
        cells.map(cell).joined(separator: ",") + "\n"
    }
}
