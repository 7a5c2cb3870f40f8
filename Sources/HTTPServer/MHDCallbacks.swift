import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

// libmicrohttpd's callbacks, called on its worker threads. They capture nothing (a C function
// pointer cannot): the `ServerContext` travels as the daemon's `void *`, unretained (the server
// keeps it alive past the daemon), and each request's `RequestState` as its `*con_cls`,
// retained from the URI-log callback to the request-completed one.
//
// For one request MHD 0.9.75 calls, in order (connection.c):
//   1. the URI-log callback, once the request line is in, with the target as sent (before MHD
//      splits off the query and decodes the path); what it returns becomes `*con_cls`;
//   2. the access handler once the header fields are in, `*upload_data_size == 0`;
//   3. the access handler once a piece of the body is in, `*upload_data_size > 0`: consume
//      it by setting the size to 0;
//   4. the access handler with `*upload_data_size == 0` once the whole body is in: the
//      answer is queued here. A response queued at step 2 is sent at once and MHD closes
//      the connection without reading the body;
//   5. the request-completed callback when the answer is sent or the request given up
//      (error, timeout, client gone, daemon stopped), whenever 1 happened.

/// 1: a request's line has come; its state starts.
func requestLineArrived(
    context: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue().requestStarted()
    return Unmanaged.passRetained(RequestState(target: cBytes(uri))).toOpaque()
}

/// 2–4: the header fields, a piece of the body, or the end of it.
func requestAdvanced(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let uploadSize, let stateAddress = requestContext?.pointee else { return .NO }
    let server = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(stateAddress).takeUnretainedValue()
    let piece = UnsafeRawBufferPointer(start: uploadData, count: uploadData == nil ? 0 : uploadSize.pointee)
    return server.advance(state, on: connection, method: method, piece: piece, consumed: uploadSize)
}

/// 5: the request is over; its state goes.
func requestCompleted(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, termination: MHD_RequestTerminationCode
) {
    guard let context, let requestContext, let stateAddress = requestContext.pointee else { return }
    requestContext.pointee = nil
    Unmanaged<RequestState>.fromOpaque(stateAddress).release()
    Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue().requestEnded()
}

/// MHD's messages (printf-style): why a start failed, or what went wrong with a client.
func messageLogged(context: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let context, let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    let written = vsnprintf(&buffer, buffer.count, format, arguments)
    guard written >= 0 else { return }
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    var text = String(decoding: bytes, as: UTF8.self)
    while let last = text.last, last.isWhitespace { text.removeLast() }
    Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue().record(text)
}

/// The bytes of a NUL-terminated string MHD gave (up to its first NUL); none for NULL.
func cBytes(_ text: UnsafePointer<CChar>?) -> [UInt8] {
    guard let text else { return [] }
    return cBytes(text, count: strlen(text))
}

/// `count` bytes MHD gave with their length (a header field as it stored it).
func cBytes(_ text: UnsafePointer<CChar>?, count: Int) -> [UInt8] {
    guard let text, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: text, count: count))
}
