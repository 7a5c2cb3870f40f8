import CMicroHTTPD
import HTTPMessages

#if canImport(Glibc)
    import Glibc
#endif

/// A request from its header fields to its answer (steps 2–4 of `MHDCallbacks.swift`).
extension ServerContext {
    func advance(
        _ state: RequestState, on connection: OpaquePointer, method: UnsafePointer<CChar>?,
        piece: UnsafeRawBufferPointer, consumed: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        guard let head = state.head else { return readHead(state, on: connection, method: method) }
        if consumed.pointee > 0 {
            // MHD passes no more than Content-Length announced, which was at most the cap;
            // anything else is a broken promise: drop the connection.
            guard piece.count == consumed.pointee, state.body.count + piece.count <= state.expectedLength else {
                return .NO
            }
            state.body.append(contentsOf: piece)
            consumed.pointee = 0
            return .YES
        }
        var request = head
        request.body = state.body
        state.body = []
        return queue(handler(request), on: connection)
    }

    /// The request line and header fields are in: read them and the body's length, or
    /// answer at once (MHD then closes the connection without reading a body).
    private func readHead(_ state: RequestState, on connection: OpaquePointer, method: UnsafePointer<CChar>?)
        -> MHD_Result
    {
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, fieldSeen, Unmanaged.passUnretained(state).toOpaque())
        do throws(HTTPRequestError) {
            let head = try HTTPRequest(
                method: cBytes(method), target: state.target, fields: state.fields,
                peer: peerText(iapscreen_mhd_client_address(connection)), limits: limits)
            state.expectedLength = try BodyFraming.length(of: head.headers, limits: limits)
            state.head = head
            state.fields = []
            state.body.reserveCapacity(state.expectedLength)
            return .YES
        } catch {
            return queue(refusal(error), on: connection)
        }
    }

    /// Hands `response` to MHD, which copies it; an answer MHD cannot send becomes a 500.
    func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let sent: MHDResponse
        switch MHDResponse.make(response, closing: isStopping) {
        case .success(let made):
            sent = made
        case .failure(let refused):
            record("answered 500 instead: \(refused.reason)")
            let error = HTTPResponse.text("Internal Server Error\n", status: 500)
            guard case .success(let made) = MHDResponse.make(error, closing: true) else { return .NO }
            sent = made
        }
        return MHD_queue_response(connection, sent.status, sent.handle)
    }
}

/// Each header field MHD stored, with its length (a value may hold any byte but CR and LF).
private func fieldSeen(
    state: UnsafeMutableRawPointer?, kind: MHD_ValueKind, name: UnsafePointer<CChar>?, nameLength: Int,
    value: UnsafePointer<CChar>?, valueLength: Int
) -> MHD_Result {
    guard let state else { return .NO }
    let request = Unmanaged<RequestState>.fromOpaque(state).takeUnretainedValue()
    request.fields.append((cBytes(name, count: nameLength), cBytes(value, count: valueLength)))
    return .YES
}
