import IAPBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Finds, in the raw bytes of a `mysqldump --xml` document, the rows in mysqldump's own
/// strict form (`<row>`, then only `<field name="…">text</field>` or
/// `<field name="…" xsi:nil="true" />`) with a plain order id, and where their fields are:
/// such a row is read here, not by libxml2, and a sharded run's worker leaves it unread when
/// the id hashes to another shard. libxml2 then sees, instead of the row, the newlines and
/// spaces that keep its lines and columns where they were, so an error later in the
/// document reads as it would have; the row is counted in its turn.
///
/// Everything the strict form does not cover is pushed as it is and parsed as before: a row
/// with anything else in it (an entity other than the five, a character XML forbids, bytes
/// that are not UTF-8, a CR, another attribute, a nested element, more than the record or
/// field caps), a document in another encoding or with a DOCTYPE, a construct longer than a
/// megabyte. Such a row is read whole, and the worker's mapper decides whose it is.
struct XMLStrictRows {
    enum Step: Equatable {
        /// Push this many bytes (never zero) as they are.
        case push(Int)
        /// A strict row at `range`, after bytes to push as they are: `elsewhere` when its
        /// order id is another shard's. In its place, `newlines` newlines and `tail` spaces.
        /// Its fields are `fields`, until the next step.
        case row(Range<Int>, elsewhere: Bool, newlines: Int, tail: Int)
        /// The bytes end inside a construct: read more (never given once the input ended).
        case needMore
    }

    private let limits: Limits
    /// A sharded run's worker's shard; nil when every row is the reader's own.
    private let shard: ShardSpec?
    /// The last strict row's fields, where `next`'s bytes hold them.
    private(set) var fields: [StrictField] = []
    /// Elements open before the next byte, and where `xmlns:xsi` was declared (XSI's URI).
    private var depth = 0
    private var xsiDepth: Int?
    private var started = false
    private var disabled = false

    /// A comment, processing instruction, CDATA section or tag longer than this is not
    /// followed: the rest of the document is pushed as it is.
    static let maxConstruct = 1 << 20
    private static let xsiURI = Array("http://www.w3.org/2001/XMLSchema-instance".utf8)

    init(shard: ShardSpec?, limits: Limits) {
        self.shard = shard
        self.limits = limits
    }

    mutating func next(_ b: UnsafeRawBufferPointer, ended: Bool) -> Step {
        guard !b.isEmpty else { return ended ? .push(0) : .needMore }
        if !started {
            guard b.count >= 256 || ended else { return .needMore }
            started = true
            disabled = !Self.isUTF8Document(b)
        }
        if disabled { return .push(b.count) }
        var i = 0
        while i < b.count {
            guard let lt = Self.find(0x3C, in: b, from: i) else { return .push(b.count) }
            i = lt
            guard b.count - i >= 10 || ended else { return i > 0 ? .push(i) : .needMore }
            if Self.matches(b, at: i, "<row>"), depth >= 1, depth + 2 <= limits.maxDepth {
                switch strictRow(b, at: i, ended: ended) {
                case .incomplete: return i > 0 ? .push(i) : .needMore
                case .row(let end, let elsewhere, let newlines, let tail):
                    // Given with what comes before it: a row is scanned once.
                    return .row(i..<end, elsewhere: elsewhere, newlines: newlines, tail: tail)
                case .notStrict: break
                }
            }
            guard let end = construct(b, at: i) else {
                if disabled || ended || b.count - i > Self.maxConstruct {
                    disabled = true
                    return .push(b.count)
                }
                return i > 0 ? .push(i) : .needMore
            }
            i = end
        }
        return .push(b.count)
    }

    // MARK: Ordinary constructs

    /// The end of the construct starting with `<` at `i`, its depth change applied; nil when
    /// the bytes end first (or the document leaves what is followed: `disabled` is set).
    private mutating func construct(_ b: UnsafeRawBufferPointer, at i: Int) -> Int? {
        if Self.matches(b, at: i, "<!--") { return Self.find("-->", in: b, from: i + 4) }
        if Self.matches(b, at: i, "<![CDATA[") { return Self.find("]]>", in: b, from: i + 9) }
        if Self.matches(b, at: i, "<?") { return Self.find("?>", in: b, from: i + 2) }
        guard i + 1 < b.count, b[i + 1] != 0x21 else {
            // A DOCTYPE, or something that is not XML: libxml2 says what.
            disabled = true
            return nil
        }
        if b[i + 1] == 0x2F {
            guard let end = Self.find(">", in: b, from: i + 2) else { return nil }
            depth = max(depth - 1, 0)
            if let x = xsiDepth, depth < x { xsiDepth = nil }
            return end
        }
        // A start tag: its end is the first `>` outside quotes.
        var j = i + 1
        var quote: UInt8 = 0
        while j < b.count {
            let c = b[j]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == 0x22 || c == 0x27 {
                quote = c
            } else if c == 0x3E {
                let selfClosing = b[j - 1] == 0x2F
                if !selfClosing { depth += 1 }
                noteNamespaces(UnsafeRawBufferPointer(rebasing: b[i..<(j + 1)]), selfClosing: selfClosing)
                return j + 1
            }
            j += 1
        }
        return nil
    }

    /// `xmlns:xsi` on a start tag: XSI's own URI opens the scope rows' `xsi:nil` needs; any
    /// other binding (or one not read plainly) leaves the rest of the document to libxml2.
    private mutating func noteNamespaces(_ tag: UnsafeRawBufferPointer, selfClosing: Bool) {
        guard let at = Self.find("xmlns:xsi", in: tag, from: 0) else { return }
        let start = at - 9
        var k = at
        while k < tag.count, ByteSearch.isSpace(tag[k]) { k += 1 }
        guard start > 0, ByteSearch.isSpace(tag[start - 1]), k < tag.count, tag[k] == 0x3D else {
            disabled = true
            return
        }
        k += 1
        while k < tag.count, ByteSearch.isSpace(tag[k]) { k += 1 }
        guard k < tag.count, tag[k] == 0x22 || tag[k] == 0x27, let close = Self.find(tag[k], in: tag, from: k + 1)
        else {
            disabled = true
            return
        }
        let value = tag[(k + 1)..<close]
        guard xsiDepth == nil, value.elementsEqual(Self.xsiURI) else {
            disabled = true
            return
        }
        if !selfClosing { xsiDepth = depth }
    }

    // MARK: Strict rows

    private enum RowScan {
        case incomplete
        case notStrict
        case row(end: Int, elsewhere: Bool, newlines: Int, tail: Int)
    }

    /// The row starting at `i` in the strict form (its fields in `fields`), or why not.
    private mutating func strictRow(_ b: UnsafeRawBufferPointer, at i: Int, ended: Bool) -> RowScan {
        var j = i + 5
        fields.removeAll(keepingCapacity: true)
        var orderID: UnsafeRawBufferPointer?
        var undecided = false
        // The bytes end inside the row: wait for more, unless it can no longer be strict (the
        // input ended, or the row is past the record cap, which is the mapper's to report).
        let notYet: RowScan = ended || b.count - i > limits.maxRecordBytes ? .notStrict : .incomplete
        while true {
            while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A { j += 1 }
            guard j + 8 <= b.count else { return notYet }
            if Self.matches(b, at: j, "</row>") {
                j += 6
                break
            }
            guard Self.matches(b, at: j, "<field"), ByteSearch.isSpace(b[j + 6]) else { return .notStrict }
            j += 7
            guard let field = strictField(b, at: &j) else { return j >= b.count ? notYet : .notStrict }
            guard fields.count < limits.maxFields else { return .notStrict }
            fields.append(field)
            guard orderID == nil, !undecided else { continue }
            switch OrderIDBytes.isOrderIDName(field.name) {
            case nil: undecided = true
            case false?: break
            case true?:
                // The mapper takes the first alias whose value is there and not blank.
                guard let text = field.text else { break }
                if text.contains(0x26) {
                    undecided = true
                } else if let plain = OrderIDBytes.plain(text) {
                    orderID = plain
                } else if !text.allSatisfy(ByteSearch.isSpace) {
                    undecided = true
                }
            }
        }
        guard j - i <= limits.maxRecordBytes, !undecided, let orderID else { return .notStrict }
        // The row's lines, found with memchr: a row is mostly one long field's text.
        var newlines = 0
        var lastLine = i
        while let nl = Self.find(0x0A, in: UnsafeRawBufferPointer(rebasing: b[..<j]), from: lastLine) {
            newlines += 1
            lastLine = nl + 1
        }
        // Columns count characters: the spaces stand for an ASCII last line only.
        guard b[lastLine..<j].allSatisfy({ $0 < 0x80 }) else { return .notStrict }
        let elsewhere = shard.map { !$0.owns(utf8: orderID) } ?? false
        return .row(end: j, elsewhere: elsewhere, newlines: newlines, tail: j - lastLine)
    }

    struct StrictField {
        /// The name attribute's value: UTF-8 that libxml2 reads as it is.
        var name: UnsafeRawBufferPointer
        /// nil for `xsi:nil="true"` (or "1"); the raw text otherwise (`isPlainText`).
        var text: UnsafeRawBufferPointer?
    }

    /// One field after `<field `: its attributes, then `/>` or `>text</field>`; `j` ends after
    /// it. nil when it is not strict, or (with `j` at the end of `b`) when the bytes end first.
    private func strictField(_ b: UnsafeRawBufferPointer, at j: inout Int) -> StrictField? {
        var name: UnsafeRawBufferPointer?
        var isNil: Bool?
        while true {
            while j < b.count, ByteSearch.isSpace(b[j]) { j += 1 }
            guard j + 2 <= b.count else {
                j = b.count
                return nil
            }
            if b[j] == 0x2F {
                guard b[j + 1] == 0x3E, let name else { return nil }
                j += 2
                return StrictField(name: name, text: isNil == true ? nil : UnsafeRawBufferPointer(rebasing: b[j..<j]))
            }
            if b[j] == 0x3E {
                guard let name else { return nil }
                let start = j + 1
                guard let lt = Self.find(0x3C, in: b, from: start) else {
                    j = b.count
                    return nil
                }
                guard lt + 8 <= b.count else {
                    j = b.count
                    return nil
                }
                let text = UnsafeRawBufferPointer(rebasing: b[start..<lt])
                guard Self.matches(b, at: lt, "</field>"), Self.isPlainText(text) else { return nil }
                j = lt + 8
                return StrictField(name: name, text: isNil == true ? nil : text)
            }
            let isName: Bool
            if Self.matches(b, at: j, "name=") {
                isName = true
                j += 5
            } else if Self.matches(b, at: j, "xsi:nil=") {
                isName = false
                j += 8
            } else {
                if b.count - j < 9 { j = b.count }
                return nil
            }
            guard j < b.count, b[j] == 0x22 || b[j] == 0x27 else {
                if j >= b.count { j = b.count }
                return nil
            }
            guard let close = Self.find(b[j], in: b, from: j + 1) else {
                j = b.count
                return nil
            }
            let value = UnsafeRawBufferPointer(rebasing: b[(j + 1)..<close])
            // libxml2 normalises whitespace in attribute values and decodes references: a value
            // with either is not read here.
            guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x3C && $0 != 0x26 }), Self.isValidUTF8(value) else {
                return nil
            }
            j = close + 1
            guard j < b.count, ByteSearch.isSpace(b[j]) || b[j] == 0x3E || b[j] == 0x2F else {
                if j >= b.count { j = b.count }
                return nil
            }
            if isName {
                guard name == nil else { return nil }
                name = value
            } else {
                guard isNil == nil, xsiDepth != nil else { return nil }
                isNil = value.elementsEqual("true".utf8) || value.elementsEqual("1".utf8)
            }
        }
    }

    // MARK: Bytes

    /// Text libxml2 reads as these very characters or their five entities and character
    /// references, with none of what it refuses (`]]>`, a control character, a CR, bad UTF-8).
    static func isPlainText(_ text: UnsafeRawBufferPointer) -> Bool {
        var k = 0
        while k < text.count {
            k = ordinaryBytes(text, from: k)
            guard k < text.count else { break }
            let c = text[k]
            if c < 0x20 {
                guard c == 0x09 || c == 0x0A else { return false }
            } else if c == 0x26 {
                guard let end = reference(text, at: k) else { return false }
                k = end
                continue
            } else if c == 0x5D {
                if matches(text, at: k, "]]>") { return false }
            } else if c >= 0x80 {
                guard let n = utf8Sequence(text, at: k) else { return false }
                k += n
                continue
            }
            k += 1
        }
        return true
    }

    /// The first byte at or after `k` that `isPlainText` must look at (a control character,
    /// `&`, `]` or a byte of a multi-byte character), or one of the 15 bytes before it:
    /// sixteen bytes at a time, as a field's text (a receipt) is mostly printable ASCII. The
    /// vector form is `JSONParser.plainRun`'s: constants splatted, comparisons the compiler
    /// keeps to vector instructions, the mask read as two words.
    private static func ordinaryBytes(_ text: UnsafeRawBufferPointer, from k: Int) -> Int {
        guard let base = text.baseAddress else { return k }
        let ampersand = SIMD16<UInt8>(repeating: 0x26)
        let bracket = SIMD16<UInt8>(repeating: 0x5D)
        let space = SIMD16<UInt8>(repeating: 0x20)
        // Below 0x20 or from 0x80 is above 0x5F once 0x20 is taken off (wrapping).
        let outside = SIMD16<UInt8>(repeating: 0x5F)
        var k = k
        while k + 16 <= text.count {
            let x = base.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
            let looked = (x .== ampersand) .| (x .== bracket) .| ((x &- space) .> outside)
            let words = unsafeBitCast(looked, to: SIMD2<UInt64>.self)
            if words[0] | words[1] != 0 { return k }
            k += 16
        }
        return k
    }

    /// The end of a reference XML predefines (`&lt;` … `&apos;`, `&#N;`, `&#xH;` of a
    /// character XML allows) at `k`; nil for any other.
    private static func reference(_ text: UnsafeRawBufferPointer, at k: Int) -> Int? {
        referenced(text, at: k)?.end
    }

    /// The character a reference at `k` stands for, and where it ends; nil for a reference
    /// XML does not predefine.
    private static func referenced(_ text: UnsafeRawBufferPointer, at k: Int) -> (scalar: UInt32, end: Int)? {
        let predefined: [(StaticString, UInt32)] = [
            ("&lt;", 0x3C), ("&gt;", 0x3E), ("&amp;", 0x26), ("&quot;", 0x22), ("&apos;", 0x27),
        ]
        for (name, scalar) in predefined where matches(text, at: k, name) {
            return (scalar, k + name.utf8CodeUnitCount)
        }
        guard k + 3 < text.count, text[k + 1] == 0x23 else { return nil }
        let hex = text[k + 2] == 0x78
        var j = k + (hex ? 3 : 2)
        var value: UInt32 = 0
        var digits = 0
        while j < text.count, text[j] != 0x3B {
            let c = text[j]
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x61...0x66 where hex: digit = UInt32(c - 0x61 + 10)
            case 0x41...0x46 where hex: digit = UInt32(c - 0x41 + 10)
            default: return nil
            }
            value = value * (hex ? 16 : 10) + digit
            digits += 1
            guard digits <= 8 else { return nil }
            j += 1
        }
        guard j < text.count, digits > 0, isXMLChar(value) else { return nil }
        return (value, j + 1)
    }

    /// The characters libxml2 gives for a strict field's text (`isPlainText`): the text with
    /// its references replaced by what they stand for.
    static func decodedText(_ text: UnsafeRawBufferPointer) -> String {
        guard var amp = find(0x26, in: text, from: 0) else { return String(decoding: text, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var k = 0
        while true {
            out.append(contentsOf: text[k..<amp])
            if let (scalar, end) = referenced(text, at: amp), let character = Unicode.Scalar(scalar) {
                UTF8.encode(character) { out.append($0) }
                k = end
            } else {
                // Not a reference (`isPlainText` lets none through): the byte as it is.
                out.append(0x26)
                k = amp + 1
            }
            guard let next = find(0x26, in: text, from: k) else { break }
            amp = next
        }
        out.append(contentsOf: text[k...])
        return String(decoding: out, as: UTF8.self)
    }

    static func isXMLChar(_ v: UInt32) -> Bool {
        v == 0x09 || v == 0x0A || v == 0x0D || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v)
            || (0x10000...0x10FFFF).contains(v)
    }

    /// The length of the UTF-8 sequence of an XML character at `k`, nil when it is not one.
    private static func utf8Sequence(_ t: UnsafeRawBufferPointer, at k: Int) -> Int? {
        let c = t[k]
        let n: Int
        var v: UInt32
        switch c {
        case 0xC2...0xDF: (n, v) = (2, UInt32(c & 0x1F))
        case 0xE0...0xEF: (n, v) = (3, UInt32(c & 0x0F))
        case 0xF0...0xF4: (n, v) = (4, UInt32(c & 0x07))
        default: return nil
        }
        guard k + n <= t.count else { return nil }
        for m in 1..<n {
            let d = t[k + m]
            guard d & 0xC0 == 0x80 else { return nil }
            v = v << 6 | UInt32(d & 0x3F)
        }
        let least: UInt32 = n == 2 ? 0x80 : (n == 3 ? 0x800 : 0x10000)
        guard v >= least, isXMLChar(v) else { return nil }
        return n
    }

    static func isValidUTF8(_ t: UnsafeRawBufferPointer) -> Bool {
        var k = 0
        while k < t.count {
            if t[k] < 0x80 {
                k += 1
            } else {
                guard let n = utf8Sequence(t, at: k) else { return false }
                k += n
            }
        }
        return true
    }

    /// A document whose markup can be found byte by byte: UTF-8 (or ASCII), said or unsaid.
    static func isUTF8Document(_ b: UnsafeRawBufferPointer) -> Bool {
        var k = 0
        if matches(b, at: 0, "\u{FEFF}") { k = 3 }
        guard k < b.count, b[k] == 0x3C || ByteSearch.isSpace(b[k]) else { return false }
        guard matches(b, at: k, "<?xml") else { return true }
        guard let end = find("?>", in: b, from: k) else { return false }
        let declaration = UnsafeRawBufferPointer(rebasing: b[k..<end])
        guard let at = find("encoding", in: declaration, from: 0) else { return true }
        let rest = declaration[at...].drop { $0 != 0x22 && $0 != 0x27 }
        guard let quote = rest.first else { return false }
        let name = rest.dropFirst().prefix { $0 != quote }.map { $0 | 0x20 }
        return name.elementsEqual("utf-8".utf8) || name.elementsEqual("utf8".utf8)
    }

    static func matches(_ b: UnsafeRawBufferPointer, at i: Int, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard i >= 0, i + n <= b.count else { return false }
        guard let base = b.baseAddress else { return n == 0 }
        return memcmp(base + i, literal.utf8Start, n) == 0
    }

    static func find(_ byte: UInt8, in b: UnsafeRawBufferPointer, from i: Int) -> Int? {
        guard i < b.count, let base = b.baseAddress, let hit = memchr(base + i, Int32(byte), b.count - i) else {
            return nil
        }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// The end of the first `literal` at or after `i`.
    static func find(_ literal: StaticString, in b: UnsafeRawBufferPointer, from i: Int) -> Int? {
        let n = literal.utf8CodeUnitCount
        var k = i
        while let hit = find(literal.utf8Start[0], in: b, from: k) {
            if matches(b, at: hit, literal) { return hit + n }
            k = hit + 1
        }
        return nil
    }
}
