/// A name and its value, as a query string, a form, a cookie header or a header field gave them.
public struct NamedValue: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Pairs in the order they were sent, repeated names kept (a form's checkboxes, a header sent
/// twice). Lookups scan: a request carries a few dozen pairs.
public struct NamedValues: Sendable, Hashable {
    public var pairs: [NamedValue]

    public init(_ pairs: [NamedValue] = []) {
        self.pairs = pairs
    }

    /// The first value sent under `name`.
    public func first(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value sent under `name`, in order.
    public func all(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    public var count: Int { pairs.count }
    public var isEmpty: Bool { pairs.isEmpty }
}
