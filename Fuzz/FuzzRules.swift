// A Rules directory: the input is split into files at lines `@@ <name>` (names taken
// modulo a fixed list: default.rules, extra.rules, catalog.csv, apps.csv, reviewers.csv;
// text before the first marker is default.rules) and loaded with RulesDirectory.load as
// the files of a directory; every diagnostic is rendered (caret lines included).
import Screening

let ruleFileNames = ["default.rules", "extra.rules", "catalog.csv", "apps.csv", "reviewers.csv"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var files: [String: [UInt8]] = [:]
    var current = "default.rules"
    var lineStart = 0
    while lineStart < size {
        var end = lineStart
        while end < size, bytes[end] != 0x0A { end += 1 }
        let line = bytes[lineStart..<min(end + 1, size)]
        if line.count >= 3, line[lineStart] == 0x40, line[lineStart + 1] == 0x40 {
            let name = String(decoding: bytes[(lineStart + 2)..<end], as: UTF8.self).fuzzTrimmed()
            current =
                ruleFileNames.first { $0 == name }
                ?? ruleFileNames[Int(name.utf8.reduce(0) { ($0 &+ Int($1)) & 0xFFFF }) % ruleFileNames.count]
        } else {
            files[current, default: []] += line
        }
        lineStart = end + 1
    }
    switch RulesDirectory.load(path: "Rules", files: files) {
    case .success(let rules): _ = rules.settings
    case .failure(let problems): for p in problems.list { _ = p.description }
    }
    return 0
}

extension String {
    func fuzzTrimmed() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" || s.first == "\r" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" || s.last == "\r" { s = s.dropLast() }
        return String(s)
    }
}
