/// CSV cells safe to open in a spreadsheet: a cell that starts with `=`, `+`, `-`, `@`,
/// tab or CR gets a leading `'` so it is never run as a formula; then RFC 4180 quoting.
public enum SpreadsheetCSV {
    public static func cell(_ value: String?) -> String {
        guard var s = value else { return "" }
        if let first = s.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            s = "'" + s
        }
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public static func row(_ cells: [String?]) -> String {
        cells.map(cell).joined(separator: ",") + "\n"
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
