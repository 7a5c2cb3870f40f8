import DumpFormats
import ReceiptFormats
import ReceiptVerification
import Screening

/// A Rules directory as a night judges by it: the directory, the verifier of its trust
/// anchors and keys, how an order is resolved against its catalog, its rules, and the
/// screening each receipt goes through on the workers.
package struct NightRules {
    package let rules: RulesDirectory
    package let verifier: ReceiptVerifier
    let resolver: OrderResolver
    package let evaluator: RuleEvaluator
    let screening: ReceiptScreening

    /// `defaultProduction`: an order that names no environment is production's. A trust
    /// file that cannot be used throws, naming it.
    package init(_ rules: RulesDirectory, defaultProduction: Bool) throws(TrustFileError) {
        let verifier = try ReceiptVerifier(
            appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
        self.rules = rules
        self.verifier = verifier
        resolver = OrderResolver(catalog: rules.catalog, defaultProduction: defaultProduction)
        evaluator = RuleEvaluator(rules: rules)
        screening = ReceiptScreening(
            resolver: resolver, evaluator: evaluator, limits: .standard,
            verify: { verifier.verify($0) })
    }

    /// Orders that name no environment are production's (`--environment production`).
    package var defaultProduction: Bool { resolver.defaultProduction }

    /// An order as screening resolves it against the catalog (`explain` shows it so).
    package func resolve(_ row: OrderRow, index: Int, receiptPlatform: Platform?) -> ScreenOrder {
        resolver.resolve(row, index: index, receiptPlatform: receiptPlatform)
    }

    /// The night's store-event logs read for these Rules (their anchors, their apps).
    func storeEvents(_ paths: [String], jobs: Int, remembering: Bool) -> StoreEventIntake.Reading {
        let verifier = self.verifier
        var intake = StoreEventIntake(
            rules: rules, verify: { verifier.verify($0).status }, jobs: jobs, limits: .standard)
        intake.keepsIdentities = remembering
        return StoreEventIntake.Reading(intake, paths: paths, inBackground: true)
    }
}
