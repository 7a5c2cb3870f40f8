/// An old-style (NeXT / OpenStep) property list value, as iOS 6 transaction receipts are
/// written, with the offset where it starts so errors about it can point there.
public struct OldStylePlist: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case data([UInt8])
        case array([OldStylePlist])
        /// Entries in document order; keys are unique (the parser rejects repeats).
        case dictionary([Entry])
    }

    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: OldStylePlist

        public init(key: String, value: OldStylePlist) {
            self.key = key
            self.value = value
        }
    }

    public var value: Value
    /// Byte offset of the value's first character in the parsed text.
    public var offset: Int

    public init(_ value: Value, offset: Int) {
        self.value = value
        self.offset = offset
    }

    /// A dictionary's value for `key`; nil if absent or not a dictionary.
    public subscript(key: String) -> OldStylePlist? {
        guard case .dictionary(let entries) = value else { return nil }
        return entries.first { $0.key == key }?.value
    }

    public var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    public var entries: [Entry]? {
        if case .dictionary(let entries) = value { return entries }
        return nil
    }
}
