/// Text made safe for HTML element content and quoted attribute values: `&`, `<`, `>`, `"`
/// and `'` become entities, everything else passes through. The one escaper of the reports,
/// the desk's pages and the sample XML dumps, kept here because the desk's pages may not
/// import Reporting.
public enum HTMLEscaping {
    public static func escape(_ s: String) -> String {
        // Most text has nothing to escape (receipts, ids, times): one pass over the contiguous bytes says so.
        var text = s
        let plain = text.withUTF8 { bytes in
            !bytes.contains { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }
        }
        guard !plain else { return text }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
