/// How refund requests are answered (docs/consumption.md): the thresholds a `.rules` file sets
/// with `consumption <parameter> <value>...`, checked by `rules check` like a rule's.
public struct ConsumptionSettings: Sendable, Equatable {
    /// One parameter of the `consumption` statement.
    public struct Parameter: Sendable {
        public let name: String
        public let defaultValue: Int
        /// The values it takes; a yes/no parameter is 0...1.
        public let range: ClosedRange<Int>
        public let isYesNo: Bool
        /// What it changes, in a few words.
        public let meaning: String
    }

    public static let parameters: [Parameter] = [
        Parameter(
            name: "decline_after_refunds", defaultValue: 2, range: 1...1000, isYesNo: false,
            meaning: "ask Apple to decline when the user has had at least this many refunds"),
        Parameter(
            name: "decline_when_consumed", defaultValue: 100, range: 0...100, isYesNo: false,
            meaning: "ask Apple to decline when at least this percentage of the purchase is used up"),
        Parameter(
            name: "prorate", defaultValue: 0, range: 0...1, isYesNo: true,
            meaning: "ask for a prorated refund of a purchase partly used up"),
    ]

    /// Refunds the user has had, at or above which the answer asks Apple to decline.
    public var declineAfterRefunds = 2
    /// Percentage used up, at or above which the answer asks Apple to decline.
    public var declineWhenConsumed = 100
    /// Whether a purchase partly used up asks for a prorated refund.
    public var prorate = false

    public init() {}

    /// The value a parameter has now (the default until a file sets it).
    public func value(_ name: String) -> Int? {
        switch name {
        case "decline_after_refunds": declineAfterRefunds
        case "decline_when_consumed": declineWhenConsumed
        case "prorate": prorate ? 1 : 0
        default: nil
        }
    }

    mutating func set(_ name: String, _ value: Int) {
        switch name {
        case "decline_after_refunds": declineAfterRefunds = value
        case "decline_when_consumed": declineWhenConsumed = value
        case "prorate": prorate = value != 0
        default: break
        }
    }
}
