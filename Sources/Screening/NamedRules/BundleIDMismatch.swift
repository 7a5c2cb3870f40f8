import ReceiptFormats

/// `bundle-id-mismatch`: the receipt belongs to an app that `apps.csv` does not list for its
/// platform (a receipt bought in another app and replayed into ours). Without an `apps.csv`
/// there is nothing to compare with, and the rule does not apply.
public enum BundleIDMismatch: NamedRule {
    public static let id: RuleID = "bundle-id-mismatch"
    public static let defaultSeverity = Severity.critical
    public static let summary = "the receipt belongs to an app that is not ours"
    public static let stage = RuleStage.receipt

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let d = c.digest else { return }
        guard let app = d.appID else {
            verdict.notApplicable("the receipt names no app")
            return
        }
        guard c.rules.hasAppsFile else {
            verdict.notApplicable("the Rules have no apps.csv to compare \(app) with")
            return
        }
        if c.rules.isOurApp(app, platform: d.platform) {
            verdict.pass("the receipt belongs to \(app), one of our apps in apps.csv")
        } else {
            verdict.fire(
                "the receipt belongs to \(app), which is not one of our apps",
                Evidence(expected: ourApps(c.rules, d.platform), actual: app))
        }
    }

    private static func ourApps(_ rules: RulesDirectory, _ platform: Platform) -> String {
        let ids = rules.apps.filter { $0.platform == platform }.map(\.appID).sorted()
        return ids.isEmpty ? "an app listed in apps.csv" : ids.joined(separator: ", ")
    }
}
