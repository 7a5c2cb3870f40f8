import IAPBasics

/// `after=` of the queue: where a page ended, as opaque URL-safe text. Decoding it is
/// reading hostile input: anything but what `cursor` made is nil (a 400), never a guess.
///
///     base64url(no padding) of  severity 0x1F first_flagged_at 0x1F order_id
extension QueuePlace {
    /// At most this long: an order id from a dump is capped by the dump readers well below it.
    static let maxCursorBytes = 4096

    public var cursor: String {
        var bytes = Array(String(severity).utf8)
        bytes.append(0x1F)
        bytes += Array(firstFlaggedAt.utf8)
        bytes.append(0x1F)
        bytes += Array(orderID.utf8)
        var text = Base64.encode(bytes, alphabet: .url)
        while text.last == "=" { text.removeLast() }
        return text
    }

    public init?(cursor: String) {
        guard cursor.utf8.count <= QueuePlace.maxCursorBytes,
            let bytes = try? Base64.decode(cursor, alphabet: .url, maxBytes: QueuePlace.maxCursorBytes)
        else { return nil }
        let parts = bytes.split(separator: 0x1F, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let severityText = String(validating: parts[0], as: UTF8.self),
            let severity = Int(severityText), (0...4).contains(severity),
            let first = String(validating: parts[1], as: UTF8.self),
            let order = String(validating: parts[2], as: UTF8.self)
        else { return nil }
        self.init(severity: severity, firstFlaggedAt: first, orderID: order)
    }
}
