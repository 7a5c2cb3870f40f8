import JSONText
import Ledger
import Screening

extension ReportedFinding {
    /// How the ledger knows a finding again on a later run: by its order and rule. A finding
    /// without an order (a record too broken to name one, an event naming none) is known by
    /// its rule and where its record stands — the file's name and line or row — under the
    /// order id "", which no order has (a row without an id is malformed). Nil when it has
    /// neither: nothing to recognise it by.
    init?(_ f: Finding) {
        if let order = f.orderID {
            self.init(orderID: order, rule: f.rule)
            return
        }
        var file: String?
        var place: String?
        for (key, value) in f.evidence.extra {
            switch (key, value) {
            case ("file", .string(let s)): file = s
            case ("line", .number(let n)): place = "line \(n)"
            case ("row", .number(let n)): place = "row \(n)"
            default: continue
            }
        }
        guard let file, let place else { return nil }
        // The name alone: a rerun may name the same dump by another path.
        let name = file.split(separator: "/").last.map(String.init) ?? file
        self.init(orderID: "", rule: "\(f.rule) \(name) \(place)")
    }
}
