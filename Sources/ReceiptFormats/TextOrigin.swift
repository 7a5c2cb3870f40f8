// Shared by the verifyReceipt, JWS and Google purchase decoders (the file name follows
// the ownership of the tree, not the scope).
import IAPBasics

/// How an offset in one text becomes the offset a user is shown: a JSON text may sit inside
/// a string of another JSON text, or inside a base64url segment of a JWS.
struct TextOrigin {
    /// The JSON text the values were parsed from, to find where a value sits; nil when the
    /// text is not JSON.
    let json: [UInt8]?
    /// Maps an offset in this text to the reported offset.
    let report: (Int) -> Int

    static func top(_ json: [UInt8]?) -> TextOrigin {
        TextOrigin(json: json) { $0 }
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
