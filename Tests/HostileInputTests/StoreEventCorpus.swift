import Decompression
import DumpFormats
import IAPBasics
import ReceiptFormats
import StoreEvents

/// What reading a whole store-event log came to: its events, its problems as
/// `<line>: <reason>` (`row <n>: …` in an XML dump), or the `InputError` code that stopped it.
struct StoreEventOutcome: CustomStringConvertible {
    var events = 0
    var problems: [String] = []
    var errorCode: String?
    /// The App Store payloads the events keep, for the signature check.
    var signed: [Receipt] = []

    /// `ok` (no problem), `problems` (at least one, and reading went on), or the error code.
    var summary: String { errorCode ?? (problems.isEmpty ? "ok" : "problems") }

    var description: String { "\(events) events, problems \(problems), error \(errorCode ?? "none")" }
}

/// Reads the log at `path` to its end with `StoreEventFile`, as `--store-events` does.
func readStoreEvents(_ path: String, limits: Limits = .standard) -> StoreEventOutcome {
    var outcome = StoreEventOutcome()
    do {
        let file = try StoreEventFile(.path(path, observer: nil), limits: limits)
        while let parsed = try file.next() {
            outcome.events += parsed.events.count
            outcome.signed += parsed.events.compactMap(\.signed)
            for p in parsed.problems {
                switch p.location.position {
                case .line(let n): outcome.problems.append("\(n): \(p.reason)")
                case .row(let n): outcome.problems.append("row \(n): \(p.reason)")
                }
            }
        }
    } catch {
        outcome.errorCode = error.code
    }
    return outcome
}

/// The problems each case of `Corpus/events/` gives, in order: `<line>: <start of the reason>`
/// (`row <n>: …` in an XML dump), and how many events it reads. Every bad event is a problem
/// at its own line (a page's bad entries too, by index); the good lines around it still read.
let storeEventCorpus: [String: (events: Int, problems: [String])] = [
    // A JWS cut in its payload (one dot left, alone and in a webhook body; with its signature
    // after the cut), a header's first bytes, an empty one. Cut in the signature (4) or
    // without one (5) it still decodes: an event whose signature verification refuses.
    "truncated-jws--problems.jsonl": (
        3,
        [
            "1: neither JSON nor a JWS",
            "2: the notification JWS cannot be read: a compact JWS has 3 dot-separated segments, found 2",
            "3: the notification JWS cannot be read: JSON text ends inside a string",
            "6: neither JSON nor a JWS",
            "7: the notification JWS cannot be read: a compact JWS has 3 dot-separated segments, found 1",
        ]
    ),
    // Where a notification goes: a signed transaction, JSON of no JWS kind, an array, a
    // notification's `data` alone; a notification where a refund-history transaction goes;
    // a notification whose signedTransactionInfo is no JSON. A numeric notificationType (7)
    // is kept as the store wrote it, a type of its own.
    // Refund requests unsigned (an empty x5c): a reason that is an object, no transaction, a
    // transaction that is no JWS, and the first again; a 5,000-character account token.
    "consumption-request-hostile--problems.jsonl": (
        3, ["3: the notification JWS cannot be read: JWS payload: base64 text ends with a single stray character"]
    ),
    "jws-not-a-notification--problems.jsonl": (
        2,
        [
            "1: a JWS transaction that is not a notification",
            "2: the notification JWS cannot be read: the JWS payload is none of",
            "3: the notification JWS cannot be read: the JWS payload is a list, not a JSON object",
            "4: a JWS transaction that is not a notification",
            "5: signedTransactions[0]: a refund-history entry that is not a signed transaction",
            "6: the notification JWS cannot be read: misspelt literal",
        ]
    ),
    // A page inside a page of each kind, an array for an entry, a notification in a voided
    // page; a page in a logged row's payload column (as JSON, and as text in text) still reads.
    "nested-pages--problems.jsonl": (
        4,
        [
            "1: voidedPurchases[0]: a voided purchase with neither orderId nor purchaseToken",
            "2: notificationHistory[0]: an entry without a signedPayload JWS",
            "3: signedTransactions[0]: an entry that is an object, not a JWS",
            "4: voidedPurchases[0]: an entry that is an array, not an object",
            "5: voidedPurchases[1]: a voided purchase with neither orderId nor purchaseToken",
        ]
    ),
    // 65 and 100 entries past Limits.small's 64 elements: the whole page, not its first 64.
    "small-page-past-element-cap--problems.jsonl": (
        2,
        [
            "1: not JSON: JSON array with more than 64 elements",
            "2: not JSON: JSON array with more than 64 elements",
        ]
    ),
    // Lines of 3 KB and 5 KB past Limits.small's 2,048 bytes, between good ones.
    "small-line-past-record-cap--problems.jsonl": (
        2,
        [
            "2: line is longer than 2048 bytes",
            "4: line is longer than 2048 bytes",
        ]
    ),
    // message.data: not base64, base64 of no JSON, of an array, of a string, of binary, empty,
    // a number; a notification of no kind, a void naming no purchase, base64 cut short, a
    // logged row instead of a notification.
    "pubsub-data-hostile--problems.jsonl": (
        1,
        [
            "1: message.data is not base64",
            "2: message.data decodes to no JSON",
            "3: message.data decodes to JSON that is not an object",
            "4: message.data decodes to JSON that is not an object",
            "5: message.data decodes to no JSON",
            "6: message.data decodes to no JSON",
            "7: a Pub/Sub message without a data string",
            "8: a rtdn-voided notification names no purchase",
            "9: a developer notification of no known kind",
            "10: message.data is not base64",
            "11: a developer notification without packageName",
        ]
    ),
    // An orderId and a purchaseToken of 1,800 bytes, within Limits.small's record cap, are
    // kept whole (BuiltCasesTests reads a 1 MB one within the real caps).
    "small-ids-long--ok.jsonl": (2, []),
    // Times as words, dates, exponents, past Int64, booleans, mongo objects; a reason as a
    // word; Apple dates as text. Google's int64 as digits in a string, or as a number, reads.
    "times-as-text--problems.jsonl": (
        2,
        [
            "1: voidedTimeMillis is not epoch milliseconds: soon",
            "2: voidedTimeMillis is not epoch milliseconds: 2024-03-04T12:00:00Z",
            "3: voidedTimeMillis is not epoch milliseconds: 1.7e12",
            "4: voidedTimeMillis is not epoch milliseconds: 99999999999999999999999",
            "5: voidedTimeMillis is not epoch milliseconds: true",
            "6: voidedTimeMillis is not epoch milliseconds: an object",
            "7: voidedReason is not a number: fraud",
            "8: eventTimeMillis is not epoch milliseconds: yesterday",
            "11: the notification JWS cannot be read: revocationDate: \"2024-03-04\" is not epoch milliseconds",
            "12: the notification JWS cannot be read: signedDate: \"yesterday\" is not epoch milliseconds",
        ]
    ),
    // A payload column left empty (null), quoted empty, blank; a row short of it. The row with
    // an event (line 5) reads.
    "small-csv-payload-empty--problems.csv": (
        1,
        [
            "2: the payload column holds no event",
            "3: an empty event",
            "4: an empty event",
            "6: row has 2 fields, header has 3",
        ]
    ),
    // Rows with no payload field, a nil one, one named `payloads`; the fourth row reads.
    "xml-no-payload-field--problems.xml": (
        1,
        [
            "row 1: no column holds the event",
            "row 2: the payload column holds no event",
            "row 3: no column holds the event",
        ]
    ),
    // A pretty page cut off after its second entry is not one JSON value, so no document:
    // its lines read as lines, each a problem (an entry with its trailing comma too).
    "document-never-ends--problems.json": (
        0,
        [
            "1: not JSON: JSON text ends inside an object",
            "2: not JSON: unexpected bytes after the JSON value",
            "3: not JSON: unexpected bytes after the JSON value",
            "4: not JSON: unexpected bytes after the JSON value",
        ]
    ),
    // The same past Limits.small's record cap: 20 entries, 22 lines.
    "small-document-never-ends-past-cap--problems.json": (
        0,
        ["1: not JSON: JSON text ends inside an object"]
            + (2...22).map { "\($0): not JSON: unexpected bytes after the JSON value" }
    ),
    // A webhook body whose string never closes: that line, not the file; line 2 reads.
    "string-never-ends--problems.jsonl": (1, ["1: not JSON: JSON text ends inside a string"]),
    // 40 deep inside a page, payload columns 20 deep, 20 deep in Pub/Sub data and in a JWS
    // payload, past Limits.small's 16; payload text in payload text 4 deep (line 5) reads.
    "small-deep-nesting--problems.jsonl": (
        2,
        [
            "1: not JSON: JSON nesting deeper than 16",
            "2: not JSON: JSON nesting deeper than 16",
            "3: message.data decodes to no JSON: JSON nesting deeper than 16",
            "4: the notification JWS cannot be read: JSON nesting deeper than 16",
        ]
    ),
    // Invalid UTF-8 in a page's string, in a JWS, in a webhook body (a lone surrogate), in
    // Pub/Sub data; a byte order mark in the middle of the file. The last line reads.
    "invalid-utf8--problems.jsonl": (
        1,
        [
            "1: not JSON: string is not valid UTF-8",
            "2: the notification JWS cannot be read: JWS payload: byte 0xef is not base64",
            "3: not JSON: string is not valid UTF-8",
            "4: message.data decodes to no JSON: string is not valid UTF-8",
            "5: neither JSON nor a JWS",
        ]
    ),
    // No extension and a first line that is neither JSON nor a JWS: a dump (docs/store-events.md),
    // whose header is not UTF-8. The file cannot be read on, and says so.
    "invalid-utf8-first-line-no-extension--bad-header": (0, []),
    // JSON that is no event: scalars, an array, an empty object, an empty string.
    "json-scalars--problems.jsonl": (
        0,
        [
            "1: neither JSON nor a JWS",
            "2: neither JSON nor a JWS",
            "3: neither JSON nor a JWS",
            "4: the notification JWS cannot be read",
            "5: JSON an array is no store event",
            "6: a JSON object that is no store event",
            "7: the notification JWS cannot be read",
        ]
    ),
    "blank-lines-and-crlf--ok.jsonl": (1, []),
    "empty--ok.jsonl": (0, []),
    "gzip-cut-short--gzip-truncated.jsonl.gz": (0, []),
]
