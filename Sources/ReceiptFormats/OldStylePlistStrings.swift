import IAPBasics

/// Strings of an old-style property list: quoted with escapes, or unquoted.
///
///   string   = '"' { char | '\' escape } '"' | unquoted { unquoted }
///   escape   = a b f n r t v " ' \ newline | 1–3 octal digits | U and 4 hex digits (UTF-16)
/// (Apple, "Old-Style ASCII Property Lists"; CoreFoundation `CFOldStylePList.c`)
extension OldStylePlistParser {
    mutating func readString() throws(DecodeError) -> String {
        let start = position
        var utf8: [UInt8] = []
        if current == UInt8(ascii: "\"") {
            position += 1
            while true {
                guard let c = current else {
                    throw DecodeError(
                        "unterminated-string", "the string opened at offset \(start) never closes",
                        at: position)
                }
                position += 1
                if c == UInt8(ascii: "\"") { break }
                if c == UInt8(ascii: "\\") {
                    try readEscape(into: &utf8)
                } else {
                    utf8.append(c)
                }
            }
        } else {
            while let c = current, OldStylePlistParser.isUnquoted(c) {
                utf8.append(c)
                position += 1
            }
            guard position > start else {
                throw DecodeError("unexpected-character", "expected a value", at: start)
            }
        }
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw DecodeError("bad-string", "the string is not valid UTF-8", at: start)
        }
        return string
    }

    /// After a backslash: one escape, appended as UTF-8.
    private mutating func readEscape(into utf8: inout [UInt8]) throws(DecodeError) {
        let escapeStart = position - 1
        guard let c = current else {
            throw DecodeError("unterminated-string", "the string ends inside an escape", at: position)
        }
        position += 1
        switch c {
        case UInt8(ascii: "a"): utf8.append(0x07)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "v"): utf8.append(0x0B)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(c - UInt8(ascii: "0"))
            for _ in 0..<2 {
                guard let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "7") else { break }
                value = value * 8 + UInt32(d - UInt8(ascii: "0"))
                position += 1
            }
            append(scalar: Unicode.Scalar(UInt8(truncatingIfNeeded: value)), to: &utf8)
        case UInt8(ascii: "U"):
            let unit = try readHex4(escapeStart: escapeStart)
            if UTF16.isLeadSurrogate(unit) {
                guard current == UInt8(ascii: "\\"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "U")
                else {
                    throw DecodeError("bad-escape", "a lone UTF-16 surrogate in a \\U escape", at: escapeStart)
                }
                position += 2
                let trail = try readHex4(escapeStart: escapeStart)
                guard UTF16.isTrailSurrogate(trail) else {
                    throw DecodeError("bad-escape", "a lone UTF-16 surrogate in a \\U escape", at: escapeStart)
                }
                let scalarValue = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00)
                guard let scalar = Unicode.Scalar(scalarValue) else {
                    throw DecodeError("bad-escape", "not a Unicode scalar", at: escapeStart)
                }
                append(scalar: scalar, to: &utf8)
            } else {
                guard let scalar = Unicode.Scalar(unit) else {
                    throw DecodeError("bad-escape", "a lone UTF-16 surrogate in a \\U escape", at: escapeStart)
                }
                append(scalar: scalar, to: &utf8)
            }
        default:
            // `\"`, `\'`, `\\`, and a backslash before a newline: the character itself.
            utf8.append(c)
        }
    }

    private mutating func readHex4(escapeStart: Int) throws(DecodeError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let c = current, let nibble = OldStylePlistParser.hexValue(c) else {
                throw DecodeError("bad-escape", "\\U needs four hex digits", at: escapeStart)
            }
            value = value << 4 | UInt16(nibble)
            position += 1
        }
        return value
    }

    private func append(scalar: Unicode.Scalar, to utf8: inout [UInt8]) {
        utf8.append(contentsOf: scalar.utf8)
    }
}
