import Foundation
import Screening

/// Whether two Rules directories verify alike: the same Apple anchors, Google keys and apps
/// (then each receipt and event is verified once for both).
enum SameTrust {
    static func holds(_ a: RulesDirectory, _ b: RulesDirectory) -> Bool {
        guard a.apps == b.apps, a.hasAppsFile == b.hasAppsFile, Set(a.googleKeyFiles.keys) == Set(b.googleKeyFiles.keys)
        else {
            return false
        }
        func contents(_ paths: [String]) -> [Data]? {
            let read = paths.compactMap { FileManager.default.contents(atPath: $0) }
            return read.count == paths.count ? read.sorted { $0.lexicographicallyPrecedes($1) } : nil
        }
        guard let appleA = contents(a.appleTrustFiles), let appleB = contents(b.appleTrustFiles), appleA == appleB
        else { return false }
        for (package, path) in a.googleKeyFiles {
            guard let other = b.googleKeyFiles[package], let x = FileManager.default.contents(atPath: path),
                let y = FileManager.default.contents(atPath: other), x == y
            else { return false }
        }
        return true
    }
}
