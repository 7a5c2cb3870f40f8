/// RFC 4180 for the small CSV files of a Rules directory (read whole; dumps have their
/// own streaming reader). Rows carry their starting line for diagnostics.
struct SmallCSV {
    struct Row {
        var line: Int
        var cells: [String]
    }

    var header: [String]
    var rows: [Row]

    enum Failure: Error {
        case unclosedQuote(line: Int)
    }

    static func parse(_ text: String) -> Result<SmallCSV, Failure> {
        var rows: [Row] = []
        var cells: [String] = []
        var cell = ""
        var line = 1
        var rowLine = 1
        var inQuotes = false
        var quoteLine = 1
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        func endRow() {
            cells.append(cell)
            cell = ""
            if !(cells.count == 1 && cells[0].trimmingSpaces.isEmpty) { rows.append(Row(line: rowLine, cells: cells)) }
            cells = []
        }
        while i < chars.count {
            let c = chars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" {
                        cell.unicodeScalars.append("\"")
                        i += 2
                        continue
                    }
                    inQuotes = false
                } else {
                    if c == "\n" { line += 1 }
                    cell.unicodeScalars.append(c)
                }
                i += 1
                continue
            }
            switch c {
            case "\"":
                inQuotes = true
                quoteLine = line
            case ",":
                cells.append(cell)
                cell = ""
            case "\r": break
            case "\n":
                endRow()
                line += 1
                rowLine = line
            default: cell.unicodeScalars.append(c)
            }
            i += 1
        }
        if inQuotes { return .failure(.unclosedQuote(line: quoteLine)) }
        if !cell.isEmpty || !cells.isEmpty { endRow() }
        guard let first = rows.first else { return .success(SmallCSV(header: [], rows: [])) }
        return .success(
            SmallCSV(header: first.cells.map { $0.trimmingSpaces.lowercased() }, rows: Array(rows.dropFirst())))
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
