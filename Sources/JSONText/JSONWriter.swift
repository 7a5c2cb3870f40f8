/// Compact JSON output, members in the order given.
public struct JSONWriter {
    /// Also escape `<`, `>`, `&`, U+2028 and U+2029 so the text is safe inside an HTML
    /// `<script>` element as well.
    public var htmlSafe: Bool

    public init(htmlSafe: Bool = false) {
        self.htmlSafe = htmlSafe
    }

    public func string(_ value: JSONValue) -> String {
        var out = [UInt8]()
        out.reserveCapacity(256)
        write(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                write(item, to: &out)
            }
            out.append(0x5D)
        case .object(let obj):
            out.append(0x7B)
            for (i, m) in obj.members.enumerated() {
                if i > 0 { out.append(0x2C) }
                writeString(m.key, to: &out)
                out.append(0x3A)
                write(m.value, to: &out)
            }
            out.append(0x7D)
        }
    }

    /// A string, or null when nil.
    public func write(orNull s: String?, to out: inout [UInt8]) {
        guard let s else { return out.append(contentsOf: "null".utf8) }
        writeString(s, to: &out)
    }

    /// Text that is JSON already (a member's key and colon, punctuation), as it is.
    public static func raw(_ s: StaticString, to out: inout [UInt8]) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    public func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        // Most strings need no escaping at all: copy their UTF-8 as it is.
        var text = s
        let plain = text.withUTF8 { bytes -> Bool in
            guard !needsEscaping(UnsafeRawBufferPointer(bytes)) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(0x22)
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x00..<0x20, 0x7F: escapeU(scalar.value, &out)
            case 0x3C where htmlSafe, 0x3E where htmlSafe, 0x26 where htmlSafe,
                0x2028 where htmlSafe, 0x2029 where htmlSafe:
                escapeU(scalar.value, &out)
            default: out.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
            }
        }
        out.append(0x22)
    }

    /// Whether some byte of `bytes` is escaped (or, 0xE2, may start U+2028 or U+2029): eight
    /// bytes at a time, as most text has none.
    private func needsEscaping(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if let base = bytes.baseAddress {
            while bytes.count - i >= 8 {
                if needsEscaping(word: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return true }
                i += 8
            }
        }
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F
                || (htmlSafe && (b == 0x3C || b == 0x3E || b == 0x26 || b == 0xE2))
            {
                return true
            }
            i += 1
        }
        return false
    }

    /// The same test on eight bytes at once (the bit tricks are exact for "any byte").
    private func needsEscaping(word w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func anyZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        func any(_ b: UInt8) -> Bool { anyZero(w ^ (ones &* UInt64(b))) }
        let control = (w &- ones &* 0x20) & ~w & highs != 0
        if control || any(0x22) || any(0x5C) || any(0x7F) { return true }
        return htmlSafe && (any(0x3C) || any(0x3E) || any(0x26) || any(0xE2))
    }

    private func escapeU(_ v: UInt32, _ out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [0x5C, 0x75])
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(hex[Int((v >> UInt32(shift)) & 0xF)])
        }
    }
}

extension JSONValue {
    /// Compact JSON text.
    public var jsonText: String { JSONWriter().string(self) }

    /// A string value, or null when nil.
    public static func string(orNull s: String?) -> JSONValue {
        s.map { .string($0) } ?? .null
    }

    /// An integer as a JSON number.
    public static func integer<I: BinaryInteger>(_ i: I) -> JSONValue {
        .number(String(i))
    }
}
