/// How long a request's body is, decided from its header fields before a byte of it is read.
///
/// RFC 9112 §6.3: a body is framed by `Transfer-Encoding` (chunked) or by `Content-Length`,
/// else there is none. We read only bodies whose length is announced, so that one over the
/// cap is refused before it is read: any `Transfer-Encoding` is 411 (RFC 9110 §15.5.12: the
/// server wants a Content-Length; browsers never send a chunked request). `Content-Length`
/// is 1*DIGIT; sent more than once it must be the same each time (§8.6), else 400, as a
/// list (`5, 5`) or anything but digits.
public enum BodyFraming {
    /// The body's length in bytes, at most `limits.maxBodyBytes`; 0 when none is announced.
    /// `headers` are a request's fields with lower-cased names.
    public static func length(of headers: NamedValues, limits: HTTPLimits) throws(HTTPRequestError) -> Int {
        if headers.first("transfer-encoding") != nil {
            throw HTTPRequestError(.lengthRequired, "a body sent with Transfer-Encoding; send it with a Content-Length")
        }
        var length: Int?
        for value in headers.all("content-length") {
            let this = try digits(value, limits: limits)
            if let length, length != this {
                throw HTTPRequestError(.badLength, "Content-Length sent twice with different values")
            }
            length = this
        }
        return length ?? 0
    }

    /// A Content-Length value; one over the cap is refused as soon as it is, before it could overflow.
    static func digits(_ value: String, limits: HTTPLimits) throws(HTTPRequestError) -> Int {
        guard !value.isEmpty else { throw HTTPRequestError(.badLength, "Content-Length is empty") }
        var n = 0
        for (i, byte) in value.utf8.enumerated() {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                throw HTTPRequestError(.badLength, "Content-Length is not a number of bytes", at: i)
            }
            let (tens, overflowed) = n.multipliedReportingOverflow(by: 10)
            n = tens &+ Int(byte - UInt8(ascii: "0"))
            guard !overflowed, n >= tens, n <= limits.maxBodyBytes else {
                throw HTTPRequestError(.bodyTooLarge, "a body of more than \(limits.maxBodyBytes) bytes is announced")
            }
        }
        return n
    }
}
