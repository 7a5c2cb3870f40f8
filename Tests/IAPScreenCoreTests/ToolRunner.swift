import Foundation
import Testing

/// Runs the built `iapscreen` binary the way cron and people do: arguments in, exit
/// status, stdout and stderr out.
struct ToolRun {
    /// The exit status, or the signal's number when `bySignal`.
    var status: Int32
    var stdout: String
    var stderr: String
    /// The process was killed by a signal (a crash) instead of exiting.
    var bySignal = false
}

enum Tool {
    /// `.build/<config>/iapscreen`, beside the test bundle.
    static var binary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" || dir.pathExtension == "xctest" { dir = dir.deletingLastPathComponent() }
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("iapscreen")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return dir.appendingPathComponent("iapscreen")
    }

    static func run(
        _ args: [String], stdin: Data? = nil, in directory: String? = nil,
        environment: [String: String] = [:]
    ) throws -> ToolRun {
        try runProgram(binary.path, args, stdin: stdin, in: directory, environment: environment)
    }

    /// The tool as a person at a terminal runs it: inside util-linux's `script`, whose
    /// pseudo-terminal makes stdout and stderr TTYs. What the terminal showed comes back.
    static func inTerminal(_ args: [String]) throws -> String {
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = ([binary.path] + args).map(quoted).joined(separator: " ")
        return try runProgram("/usr/bin/script", ["-qfec", command, "/dev/null"]).stdout
    }

    /// Any program, with the same plumbing.
    static func runProgram(
        _ path: String, _ args: [String], stdin: Data? = nil, in directory: String? = nil,
        environment: [String: String] = [:]
    ) throws -> ToolRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return ToolRun(
            status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), bySignal: p.terminationReason == .uncaughtSignal)
    }
}

/// A scratch directory removed at the end of the test.
final class Scratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "iapscreen-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let full = file(name)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
        return full
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: file(name), encoding: .utf8)
    }
}

/// The lines of a gzipped file, through the system's gzip (not the tool's own reader).
func gunzipLines(_ path: String) throws -> [Substring] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/gzip")
    p.arguments = ["-dc", path]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n")
}
