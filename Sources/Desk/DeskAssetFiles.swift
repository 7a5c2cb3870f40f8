import DeskPages
import Foundation
import HTTPMessages

/// The desk's script and style sheet, read once at start from their directory: a request
/// names one of these few names or gets 404, so no path reaches any other file.
public struct DeskAssetFiles: Sendable {
    private let files: [String: (type: String, body: [UInt8])]

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads every asset from `directory`, or says which one is missing.
    public init(directory: String) throws(Missing) {
        var files: [String: (type: String, body: [UInt8])] = [:]
        for name in DeskAssets.names {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Missing(description: "the desk's asset \(path) cannot be read")
            }
            let type = name.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
            files[name] = (type, [UInt8](data))
        }
        self.files = files
    }

    func response(for name: String) -> HTTPResponse? {
        guard let file = files[name] else { return nil }
        var r = HTTPResponse(status: 200, body: file.body)
        r.setHeader("Content-Type", file.type)
        // Served again when they change with a new build; small enough not to matter.
        r.setHeader("Cache-Control", "no-cache")
        return r
    }
}
