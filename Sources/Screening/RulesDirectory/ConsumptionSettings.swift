/// How refund requests are answered (docs/rules.md): the thresholds a `.rules` file sets
/// with `consumption <parameter> <value>...`, checked by `rules check` like a rule's.
public struct ConsumptionSettings: Sendable, Equatable {
    /// One parameter of the `consumption` statement: the values it takes (a yes/no one is 0...1).
    public struct Parameter: Sendable {
        public let name: String
        public let range: ClosedRange<Int>
        public let isYesNo: Bool
    }

    public static let parameters: [Parameter] = [
        Parameter(name: "decline_after_refunds", range: 1...1000, isYesNo: false),
        Parameter(name: "decline_when_consumed", range: 0...100, isYesNo: false),
        Parameter(name: "prorate", range: 0...1, isYesNo: true),
    ]

    /// Refunds the user has had, at or above which the answer asks Apple to decline.
    public var declineAfterRefunds = 2
    /// Percentage used up, at or above which the answer asks Apple to decline.
    public var declineWhenConsumed = 100
    /// Whether a purchase partly used up asks for a prorated refund.
    public var prorate = false

    public init() {}

    mutating func set(_ name: String, _ value: Int) {
        switch name {
        case "decline_after_refunds": declineAfterRefunds = value
        case "decline_when_consumed": declineWhenConsumed = value
        case "prorate": prorate = value != 0
        default: break
        }
    }
}
