/// `sandbox-in-production`: a sandbox, Xcode or LocalTesting receipt, a Google test purchase,
/// or a verifyReceipt status 21007, credited by a production order. An iOS 6 receipt's
/// environment sits outside its signed part — a Sandbox receipt stripped of it (or with it
/// rewritten) verifies all the same — so by default every iOS 6 receipt credited in
/// production fires, whatever its environment says, unless the Rules take its word. Only
/// this rule's findings are exempt for App Review accounts by default.
public enum SandboxInProduction: NamedRule {
    public static let id: RuleID = "sandbox-in-production"
    public static let defaultSeverity = Severity.high
    public static let summary =
        "a sandbox, Xcode or test purchase, or an iOS 6 receipt (whose environment is not signed), credited in production"
    public static let stage = RuleStage.receipt

    public static let trustLegacyEnvironment = RuleParameter(
        rule: id, "trust_legacy_environment", default: 0, .yesNo,
        meaning: "take an iOS 6 receipt's `environment` at its word. It sits outside the signed `purchase-info`, so a "
            + "Sandbox receipt stripped of it looks like a production one and still verifies; by default an iOS 6 receipt "
            + "credited in production is flagged whatever its environment says or leaves out (`decode` prints "
            + "`\"environment_verified\": false` for them)")
    public static var parameters: [RuleParameter] { [trustLegacyEnvironment] }

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let d = c.digest else { return }
        guard c.order.production else {
            verdict.notApplicable("the order was credited in sandbox")
            return
        }
        if d.isSandbox {
            let env = d.status == 21007 ? "status 21007 (sandbox receipt)" : (d.environment ?? "test purchase")
            verdict.fire(
                "a \(env) receipt was credited in production",
                Evidence(expected: "Production", actual: d.environment ?? env))
        } else if d.kind.signsEnvironment {
            verdict.pass("receipt environment \(d.environment ?? "not stated, and no test purchase")")
        } else if c.value(trustLegacyEnvironment) == 0 {
            let stated = d.environment.map { "environment \"\($0)\"" } ?? "no environment"
            verdict.fire(
                "an iOS 6 receipt with \(stated) was credited in production; the iOS 6 environment is not signed, "
                    + "and a Sandbox receipt stripped of its environment (or with it rewritten) would look the same",
                Evidence(expected: "a signed Production environment", actual: d.environment ?? "absent (unsigned)"))
        } else {
            verdict.pass(
                "iOS 6 receipt environment \(d.environment ?? "absent") taken as production: trust_legacy_environment is yes, though it is not signed"
            )
        }
    }
}
