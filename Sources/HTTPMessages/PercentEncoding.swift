/// RFC 3986 §2.1 percent-encoding: `%` and two hex digits stand for one byte.
///
/// Decoding is strict where browsers' URL parsers are lenient: a `%` without two hex digits
/// after it, or decoded bytes that are not UTF-8, are errors, never passed through or replaced,
/// so that what reaches a path or a form is exactly what was meant or nothing.
enum PercentEncoding {
    /// The bytes `part` stands for (its indices are offsets in the whole input, for errors);
    /// `+` is a space when `plusIsSpace` (application/x-www-form-urlencoded, WHATWG URL §5.1).
    static func decode(_ part: ArraySlice<UInt8>, plusIsSpace: Bool, _ code: HTTPRequestError.Code, _ what: String)
        throws(HTTPRequestError) -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        var i = part.startIndex
        while i < part.endIndex {
            let byte = part[i]
            if byte == UInt8(ascii: "%") {
                guard part.endIndex - i >= 3, let high = hexValue(part[i + 1]), let low = hexValue(part[i + 2]) else {
                    throw HTTPRequestError(code, "\(what) has a % not followed by two hex digits", at: i)
                }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        return out
    }

    /// Decoded bytes as text; `at` is where the part began.
    static func text(_ bytes: [UInt8], _ code: HTTPRequestError.Code, _ what: String, at offset: Int)
        throws(HTTPRequestError) -> String
    {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HTTPRequestError(code, "\(what) is not UTF-8 once decoded", at: offset)
        }
        return text
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `text` with every byte outside `kept` (and every non-ASCII byte) written as `%XX`,
    /// and a space as `+` when `spaceAsPlus`.
    static func encode(_ text: String, keeping kept: (UInt8) -> Bool, spaceAsPlus: Bool) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte < 0x80 && kept(byte) {
                out.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// RFC 3986 §2.3 unreserved: `A-Z a-z 0-9 - . _ ~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
