/// Why a request cannot be served as sent: a stable code tests compare, a reason people read
/// (it names the place, never repeats the request's bytes), and the byte offset in the part
/// that was read (the target, a header's value, the body).
public struct HTTPRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        case badMethod = "bad-method"
        case badTarget = "bad-target"
        case badPath = "bad-path"
        case badQuery = "bad-query"
        case badHeader = "bad-header"
        case badCookie = "bad-cookie"
        case badForm = "bad-form"
        case badJSON = "bad-json"
        case badLength = "bad-length"
        case lengthRequired = "length-required"
        case unsupportedMediaType = "unsupported-media-type"
        case targetTooLong = "target-too-long"
        case headersTooLarge = "headers-too-large"
        case bodyTooLarge = "body-too-large"

        /// The status a server answers with.
        public var status: Int {
            switch self {
            case .targetTooLong: return 414
            case .headersTooLarge: return 431
            case .bodyTooLarge: return 413
            case .lengthRequired: return 411
            case .unsupportedMediaType: return 415
            default: return 400
            }
        }
    }

    public var code: Code
    public var reason: String
    public var offset: Int

    public init(_ code: Code, _ reason: String, at offset: Int = 0) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var status: Int { code.status }

    public var description: String { "\(code.rawValue) at offset \(offset): \(reason)" }
}
