/// Where a dump record came from: the file and its 1-based line, or its XML row number.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public enum Position: Sendable, Hashable {
        case line(Int)
        case row(Int)
    }

    public var file: String
    public var position: Position

    public init(file: String, line: Int) {
        self.file = file
        self.position = .line(line)
    }

    public init(file: String, row: Int) {
        self.file = file
        self.position = .row(row)
    }

    public var description: String {
        switch position {
        case .line(let n): return "\(file):\(n)"
        case .row(let n): return "\(file) row \(n)"
        }
    }
}
