import IAPBasics

/// Parses old-style property list text, consumed from the front, with depth, element and
/// size caps from `Limits`; every error names its byte offset.
///
/// Grammar (Apple, "Old-Style ASCII Property Lists", Property List Programming Guide;
/// CoreFoundation `CFOldStylePList.c`):
///   plist      = value, then only whitespace and comments
///   value      = string | data | array | dictionary
///   string     = '"' { char | '\' escape } '"' | unquoted { unquoted }
///   unquoted   = A–Z a–z 0–9 _ $ + / : . -
///   escape     = a b f n r t v " ' \ newline | 1–3 octal digits | U and 4 hex digits (UTF-16)
///   data       = '<' { hex hex | whitespace } '>'
///   array      = '(' [ value { ',' value } [ ',' ] ] ')'
///   dictionary = '{' { string '=' value ';' } '}'
///   whitespace = space, tab, CR, LF; comments '// … end of line' and '/* … */'
extension OldStylePlist {
    public static func parse(_ text: [UInt8], limits: Limits = .standard) throws(DecodeError) -> OldStylePlist {
        guard text.count <= limits.maxPayloadBytes else {
            throw DecodeError("too-large", "\(text.count) bytes exceed the cap of \(limits.maxPayloadBytes)", at: 0)
        }
        var parser = OldStylePlistParser(text: text, limits: limits)
        try parser.skipWhitespace()
        let value = try parser.readValue(depth: 0)
        try parser.skipWhitespace()
        guard parser.position == text.count else {
            throw DecodeError("trailing-bytes", "unexpected text after the property list", at: parser.position)
        }
        return value
    }
}

struct OldStylePlistParser {
    let text: [UInt8]
    let limits: Limits
    var position = 0

    init(text: [UInt8], limits: Limits) {
        self.text = text
        self.limits = limits
    }

    var current: UInt8? { position < text.count ? text[position] : nil }

    mutating func readValue(depth: Int) throws(DecodeError) -> OldStylePlist {
        let start = position
        switch current {
        case nil:
            throw DecodeError("truncated", "the property list ends where a value was expected", at: start)
        case UInt8(ascii: "{"):
            try checkDepth(depth, at: start)
            return OldStylePlist(.dictionary(try readDictionary(depth: depth)), offset: start)
        case UInt8(ascii: "("):
            try checkDepth(depth, at: start)
            return OldStylePlist(.array(try readArray(depth: depth)), offset: start)
        case UInt8(ascii: "<"):
            return OldStylePlist(.data(try readData()), offset: start)
        default:
            return OldStylePlist(.string(try readString()), offset: start)
        }
    }

    private func checkDepth(_ depth: Int, at offset: Int) throws(DecodeError) {
        guard depth < limits.maxDepth else {
            throw DecodeError("too-deep", "property list nesting deeper than \(limits.maxDepth) levels", at: offset)
        }
    }

    private mutating func readDictionary(depth: Int) throws(DecodeError) -> [OldStylePlist.Entry] {
        let start = position
        position += 1
        var entries: [OldStylePlist.Entry] = []
        var keys: Set<String> = []
        while true {
            try skipWhitespace()
            guard let c = current else {
                throw DecodeError(
                    "unterminated-dictionary", "the dictionary opened at offset \(start) never closes",
                    at: position)
            }
            if c == UInt8(ascii: "}") {
                position += 1
                return entries
            }
            guard entries.count < limits.maxElements else {
                throw DecodeError(
                    "too-many-elements", "more than \(limits.maxElements) entries in one dictionary",
                    at: position)
            }
            let keyStart = position
            guard c != UInt8(ascii: "{"), c != UInt8(ascii: "("), c != UInt8(ascii: "<") else {
                throw DecodeError("unexpected-character", "a dictionary key must be a string", at: keyStart)
            }
            let key = try readString()
            guard keys.insert(key).inserted else {
                throw DecodeError("duplicate-key", "the key '\(key)' appears twice", at: keyStart)
            }
            try skipWhitespace()
            try expect(UInt8(ascii: "="), "'=' after a dictionary key")
            try skipWhitespace()
            let value = try readValue(depth: depth + 1)
            try skipWhitespace()
            try expect(UInt8(ascii: ";"), "';' after a dictionary value")
            entries.append(OldStylePlist.Entry(key: key, value: value))
        }
    }

    private mutating func readArray(depth: Int) throws(DecodeError) -> [OldStylePlist] {
        let start = position
        position += 1
        var items: [OldStylePlist] = []
        while true {
            try skipWhitespace()
            guard let c = current else {
                throw DecodeError(
                    "unterminated-array", "the array opened at offset \(start) never closes", at: position)
            }
            if c == UInt8(ascii: ")") {
                position += 1
                return items
            }
            guard items.count < limits.maxElements else {
                throw DecodeError(
                    "too-many-elements", "more than \(limits.maxElements) items in one array", at: position)
            }
            items.append(try readValue(depth: depth + 1))
            try skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
            } else if current != UInt8(ascii: ")") {
                guard current != nil else {
                    throw DecodeError(
                        "unterminated-array", "the array opened at offset \(start) never closes",
                        at: position)
                }
                throw DecodeError("unexpected-character", "expected ',' or ')' in an array", at: position)
            }
        }
    }

    private mutating func readData() throws(DecodeError) -> [UInt8] {
        let start = position
        position += 1
        var bytes: [UInt8] = []
        var high: UInt8?
        while true {
            guard let c = current else {
                throw DecodeError("unterminated-data", "the data opened at offset \(start) never closes", at: position)
            }
            position += 1
            if c == UInt8(ascii: ">") {
                guard high == nil else {
                    throw DecodeError("bad-data", "data holds an odd number of hex digits", at: position - 1)
                }
                return bytes
            }
            if OldStylePlistParser.isWhitespace(c) { continue }
            guard let nibble = OldStylePlistParser.hexValue(c) else {
                throw DecodeError("bad-data", "data holds a character that is not a hex digit", at: position - 1)
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
    }

    private mutating func expect(_ c: UInt8, _ what: String) throws(DecodeError) {
        guard let found = current else {
            throw DecodeError("truncated", "the property list ends where \(what) was expected", at: position)
        }
        guard found == c else {
            throw DecodeError("unexpected-character", "expected \(what)", at: position)
        }
        position += 1
    }

    mutating func skipWhitespace() throws(DecodeError) {
        while let c = current {
            if OldStylePlistParser.isWhitespace(c) {
                position += 1
            } else if c == UInt8(ascii: "/"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "/") {
                while let d = current, d != 0x0A, d != 0x0D { position += 1 }
            } else if c == UInt8(ascii: "/"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "*") {
                let start = position
                position += 2
                while true {
                    guard position + 1 < text.count else {
                        throw DecodeError(
                            "unterminated-comment", "the comment opened at offset \(start) never closes",
                            at: text.count)
                    }
                    if text[position] == UInt8(ascii: "*"), text[position + 1] == UInt8(ascii: "/") {
                        position += 2
                        break
                    }
                    position += 1
                }
            } else {
                return
            }
        }
    }

    private static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    static func isUnquoted(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
