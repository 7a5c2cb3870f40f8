import HTTPMessages

/// One request while libmicrohttpd reads it: made when its request line has come (the
/// URI-log callback), given to MHD as the request's `*con_cls`, released in the
/// request-completed callback. MHD calls back for one connection on one thread at a time,
/// so it needs no lock.
final class RequestState {
    /// The request target as sent; MHD hands the access handler a decoded copy.
    let target: [UInt8]
    /// The header fields as MHD stored them, while they are collected.
    var fields: [(name: [UInt8], value: [UInt8])] = []
    /// Set once the request line and header fields have been read and accepted.
    var head: HTTPRequest?
    /// The announced length, at most the body cap.
    var expectedLength = 0
    var body: [UInt8] = []

    init(target: [UInt8]) {
        self.target = target
    }
}
