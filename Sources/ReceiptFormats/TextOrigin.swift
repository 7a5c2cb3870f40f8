// Shared by the verifyReceipt, JWS and Google purchase decoders (the file name follows
// the ownership of the tree, not the scope).
import IAPBasics

/// How an offset in one text becomes the offset a user is shown: a JSON text may sit inside
/// a string of another JSON text, or inside a base64url segment of a JWS.
struct TextOrigin {
    /// The JSON text the values were parsed from, to find where a value sits; nil when the
    /// text is not JSON.
    let json: [UInt8]?
    /// Where this text's bytes lie base64url-encoded in the outer text (a JWS segment), if they do.
    private let segmentStart: Int?
    /// Maps an offset in the outer text (this one, when not in a segment) to the reported offset.
    private let outer: (Int) -> Int

    private init(json: [UInt8]?, segmentStart: Int? = nil, outer: @escaping (Int) -> Int) {
        self.json = json
        self.segmentStart = segmentStart
        self.outer = outer
    }

    static func top(_ json: [UInt8]?) -> TextOrigin {
        TextOrigin(json: json) { $0 }
    }

    /// Maps an offset in this text to the reported offset.
    func report(_ offset: Int) -> Int {
        // Decoded byte k of a base64url segment starts in character ⌊4k/3⌋ of it.
        guard let segmentStart else { return outer(offset) }
        return outer(segmentStart + offset / 3 * 4 + offset % 3 * 4 / 3)
    }

    /// The text that the base64url segment starting at `start` of this text decodes to.
    /// Made for every JWS: it keeps the offset beside this text's mapping, rather than in a
    /// closure of its own.
    func inSegment(at start: Int, json inner: [UInt8]) -> TextOrigin {
        guard segmentStart != nil else { return TextOrigin(json: inner, segmentStart: start, outer: outer) }
        return TextOrigin(json: inner, segmentStart: start) { self.report($0) }
    }

    /// The offset of the value at `path`, or of its nearest enclosing value that can be found.
    func offset(of path: [JSONPathStep]) -> Int {
        if let json {
            var prefix = path[...]
            while true {
                if let start = JSONLocator.start(of: Array(prefix), in: json) { return report(start) }
                guard !prefix.isEmpty else { break }
                prefix = prefix.dropLast()
            }
        }
        return report(0)
    }

    /// The text held (decoded) by the JSON string at `path` of this text.
    func inString(at path: [JSONPathStep], json inner: [UInt8]?) -> TextOrigin {
        TextOrigin(json: inner) { k in
            guard let outer = self.json, let quote = JSONLocator.start(of: path, in: outer) else {
                return self.offset(of: path)
            }
            return self.report(JSONLocator.rawOffset(ofDecodedByte: k, inStringAt: quote, in: outer))
        }
    }

    /// The same error, its offset in this text turned into the reported one.
    func relocate(_ e: DecodeError) -> DecodeError {
        DecodeError(e.code, e.reason, at: report(e.offset))
    }
}
