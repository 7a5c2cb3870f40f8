import IAPBasics

/// A problem in a Rules directory, shown as `file:line:column: error: message`, the line
/// with a caret under the culprit, and a hint that says how to fix it.
public struct RulesDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the problem is the file as a whole.
    public var line: Int
    /// 1-based column of the culprit's first character.
    public var column: Int
    /// How many characters to underline.
    public var length: Int
    public var message: String
    public var hint: String?
    /// The offending line as written (for the caret).
    public var sourceLine: String?

    public init(
        file: String, line: Int = 0, column: Int = 1, length: Int = 1, message: String,
        hint: String? = nil, sourceLine: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.length = max(1, length)
        self.message = message
        self.hint = hint
        self.sourceLine = sourceLine
    }

    public var description: String {
        var out = line > 0 ? "\(file):\(line):\(column): error: \(message)" : "\(file): error: \(message)"
        if let src = sourceLine {
            out += "\n    \(src)\n    " + repeated(0x20, column - 1) + "^" + repeated(0x7E, length - 1)
        }
        if let hint { out += "\n    hint: \(hint)" }
        return out
    }
}

/// `count` times the ASCII character `byte` (none for a count below 1), made at once: a
/// caret under column 10,000 of a long line is not 10,000 appends.
private func repeated(_ byte: UInt8, _ count: Int) -> String {
    String(decoding: [UInt8](repeating: byte, count: max(0, count)), as: UTF8.self)
}

/// The closest of `candidates` to `word`, if it is close enough to be a typo.
func nearest(_ word: String, in candidates: [String]) -> String? {
    Spelling.nearest(word, in: candidates)
}
