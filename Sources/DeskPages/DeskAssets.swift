import Foundation

/// The desk's script and style sheet: files beside the sources (`Assets/`), copied by SwiftPM
/// into the resource bundle `iapscreen_DeskPages.resources/Assets` next to the executable. The
/// server reads them once at start and serves only these names under `/assets/`.
///
/// `Bundle.module` is not used: its accessor stops the process when the bundle is missing;
/// here a missing directory is nil, and the server says so and exits.
public enum DeskAssets {
    public static let names = ["desk.js", "desk.css"]

    /// The bundle's directory SwiftPM makes for this target (package `iapscreen`).
    static let bundleName = "iapscreen_DeskPages.resources"

    /// The content type each asset is served with.
    public static func contentType(_ name: String) -> String? {
        switch name {
        case "desk.js": "text/javascript; charset=utf-8"
        case "desk.css": "text/css; charset=utf-8"
        default: nil
        }
    }

    /// The first directory holding every asset: beside the running executable (through
    /// /proc/self/exe, then argv[0]), then the sources this module was built from.
    public static func directory() -> String? {
        candidates().first { dir in names.allSatisfy { FileManager.default.isReadableFile(atPath: dir + "/" + $0) } }
    }

    /// Each asset's bytes read from `directory`, by name; nil when one cannot be read.
    public static func read(from directory: String) -> [String: [UInt8]]? {
        var files: [String: [UInt8]] = [:]
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return nil }
            files[name] = [UInt8](data)
        }
        return files
    }

    static func candidates() -> [String] {
        var executables: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            executables.append(exe)
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            executables.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().path)
        }
        var dirs = executables.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        // The test runner on Linux is `…/debug/iapscreenPackageTests.xctest`: the bundle is beside it.
        dirs = dirs.map { $0 + "/" + bundleName + "/Assets" }
        // Built from a checkout: the sources' own copy.
        dirs.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Assets")
        return dirs
    }
}
