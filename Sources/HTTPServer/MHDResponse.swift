import CMicroHTTPD
import HTTPMessages

/// An `HTTPResponse` as a libmicrohttpd response, which holds its own copy of the body;
/// destroyed in `deinit` (MHD keeps a reference of its own while it sends a queued one).
final class MHDResponse {
    let handle: OpaquePointer
    let status: UInt32

    struct Refused: Error {
        let reason: String
    }

    private init(handle: OpaquePointer, status: UInt32) {
        self.handle = handle
        self.status = status
    }

    deinit { MHD_destroy_response(handle) }

    /// MHD sends status codes 100–999 with their reason phrase; it refuses a header with a
    /// CR or LF (it would end the field) and sets `Content-Length` itself. `closing` adds
    /// `Connection: close`, which MHD honours by closing after the answer.
    static func make(_ response: HTTPResponse, closing: Bool) -> Result<MHDResponse, Refused> {
        guard let status = UInt32(exactly: response.status), (100...999).contains(status) else {
            return .failure(Refused(reason: "status \(response.status) is not three digits"))
        }
        if let bad = response.unsendableHeader {
            return .failure(Refused(reason: "the header field \(bad.name.debugDescription) cannot be sent"))
        }
        let made = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(
                body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .failure(Refused(reason: "libmicrohttpd could not make a response")) }
        let answer = MHDResponse(handle: made, status: status)
        let fields = response.headers.pairs + (closing ? [NamedValue("Connection", "close")] : [])
        for field in fields where MHD_add_response_header(made, field.name, field.value) != .YES {
            return .failure(Refused(reason: "libmicrohttpd refused the header field \(field.name.debugDescription)"))
        }
        return .success(answer)
    }
}
