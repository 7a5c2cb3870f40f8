// Request bytes as the review desk's server reads them (HTTPMessages), standard and small
// limits: the input as a path, a query or form, a Cookie header, a Content-Type, and as a
// whole request (`METHOD TARGET` line, `name: value` lines, a blank line, the body read as
// JSON and as a form). What reads must hold each parser's promise (no path segment names
// anything but a file inside a directory) and read back the same once written again.
import HTTPMessages
import JSONText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let limits: HTTPLimits = size > 0 && data[size - 1] & 1 == 1 ? .small : .standard
    checkPath(bytes, limits)
    checkForm(bytes, limits)
    if let text = String(validating: bytes, as: UTF8.self) {
        checkCookies(text, limits)
        _ = try? MediaType(parsing: text)
    }
    checkRequest(bytes, limits)
    return 0
}

/// Segments are never `.`, `..`, nor hold `/`, `\` or a control character; encoded, they read back.
private func checkPath(_ bytes: [UInt8], _ limits: HTTPLimits) {
    guard let segments = try? RequestPath.segments(bytes[...], limits: limits) else { return }
    guard segments.count <= limits.maxPathSegments else { fatalError("more segments than the cap") }
    for segment in segments {
        if segment == "." || segment == ".." { fatalError("a dot segment was read") }
        if segment.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
            fatalError("a segment holds a separator or a control character")
        }
    }
    guard (try? RequestPath.segments(Array(RequestPath.encode(segments).utf8)[...], limits: limits)) == segments else {
        fatalError("encoded segments do not read back")
    }
}

private func checkForm(_ bytes: [UInt8], _ limits: HTTPLimits) {
    guard let pairs = try? FormURLEncoding.parse(bytes[...], maxPairs: limits.maxFormPairs, .badForm, "the form") else {
        return
    }
    let again = try? FormURLEncoding.parse(
        Array(FormURLEncoding.encode(pairs).utf8)[...], maxPairs: limits.maxFormPairs, .badForm, "the form")
    guard again == pairs else { fatalError("encoded pairs do not read back") }
}

/// Cookie names and values hold no `;`, no control character and no space or tab at either end.
private func checkCookies(_ text: String, _ limits: HTTPLimits) {
    guard let cookies = try? CookieHeader.parse([text], limits: limits) else { return }
    guard cookies.count <= limits.maxCookies else { fatalError("more cookies than the cap") }
    for part in cookies.pairs.flatMap({ [$0.name, $0.value] }) {
        if part.utf8.contains(where: { $0 == UInt8(ascii: ";") || $0 < 0x20 || $0 == 0x7F }) {
            fatalError("a cookie holds ; or a control character")
        }
        if part.hasPrefix(" ") || part.hasSuffix(" ") || part.hasPrefix("\t") || part.hasSuffix("\t") {
            fatalError("a cookie keeps white space at an end")
        }
    }
}

/// The input as a request: its head up to the first blank line, then its body.
private func checkRequest(_ bytes: [UInt8], _ limits: HTTPLimits) {
    let blank: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
    let headEnd = (0..<max(0, bytes.count - 3)).first { bytes[$0..<$0 + 4].elementsEqual(blank) } ?? bytes.count
    let body = headEnd + 4 <= bytes.count ? Array(bytes[(headEnd + 4)...]) : []
    var lines = bytes[..<headEnd].split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
        line.last == 0x0D ? line.dropLast() : line
    }
    guard !lines.isEmpty else { return }
    let requestLine = lines.removeFirst().split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
    guard requestLine.count >= 2 else { return }
    let fields: [(name: [UInt8], value: [UInt8])] = lines.map { line in
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let value = colon < line.endIndex ? line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 } : []
        return (Array(line[..<colon]), Array(value))
    }
    guard
        let request = try? HTTPRequest(
            method: Array(requestLine[0]), target: Array(requestLine[1]), fields: fields, body: body, limits: limits)
    else { return }
    if request.headers.pairs.contains(where: { $0.name != $0.name.lowercased() }) {
        fatalError("a header name kept an upper-case letter")
    }
    _ = try? BodyFraming.length(of: request.headers, limits: limits)
    _ = try? request.form(limits: limits)
    if let object = try? request.jsonObject(limits: limits) {
        let again = try? JSONParser.parse(Array(JSONValue.object(object).jsonText.utf8))
        guard again?.object == object else { fatalError("a JSON body does not read back as it was written") }
    }
}
