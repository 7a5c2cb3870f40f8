import IAPBasics
import ReceiptBuilder

/// `receipt-examples.txt`: one payload of every kind `decode` reads, one per line, as a
/// security reviewer would paste them.
enum SampleExamples {
    static func text(pki: TestPKI, at t: Timestamp) throws -> String {
        let later = Timestamp(clampingMillis: t.millis + 30 * 86_400_000, hasMilliseconds: false)
        let bundle = SampleCatalog.bundleID

        var app = AppReceiptBuilder.Spec(
            bundleID: bundle, appVersion: "4.2", appItemID: SampleCatalog.appItemID, creationDate: t)
        var gems = AppReceiptBuilder.InAppPurchase(
            productID: "com.example.game.gems550", transactionID: "160000123456789", purchaseDate: t)
        gems.productTypeCode = 1
        var vip = AppReceiptBuilder.InAppPurchase(
            productID: "com.example.game.vip.monthly", transactionID: "160000123456790",
            purchaseDate: t)
        vip.productTypeCode = 3
        vip.expiresDate = later
        vip.webOrderLineItemID = 160_000_045_678_901
        app.purchases = [gems, vip]
        let appReceipt = try AppReceiptBuilder.build(app, signedBy: pki.appReceiptSigner)

        var xcode = app
        xcode.environment = "Xcode"
        xcode.appItemID = 0
        xcode.encoding = .xcodeBER
        xcode.dateStyle = .offset(minutes: 60)
        let xcodeReceipt = try AppReceiptBuilder.build(xcode, signedBy: pki.xcodeReceiptSigner)

        let legacy = try LegacyReceiptBuilder.build(
            LegacyReceiptBuilder.Spec(
                bundleID: bundle, productID: "com.example.game.gems100", itemID: "987654321",
                transactionID: "1000000012345678", purchaseDate: t),
            signedBy: pki.legacyReceiptSigner)

        var response = VerifyReceiptBuilder.Response(
            bundleID: bundle, appItemID: SampleCatalog.appItemID, receiptCreationDate: t)
        var claim = VerifyReceiptBuilder.Transaction(
            productID: "com.example.game.vip.monthly", transactionID: "160000123456790",
            purchaseDate: t)
        claim.expiresDate = later
        response.latestReceiptInfo = [claim]
        response.latestReceipt = Base64.encode(appReceipt)
        let far = Timestamp(clampingMillis: 1_861_920_000_000, hasMilliseconds: false)  // 2029
        let forged = response.rewritingClaims(of: "160000123456790") { $0.expiresDate = far }

        var tx = JWSBuilder.Transaction(
            transactionID: "2000000987654321", bundleID: bundle, productID: "com.example.game.noads",
            type: "Non-Consumable", purchaseDate: t, signedDate: t)
        tx.appAccountToken = "6f1c2a5e-8b7d-4c3e-9a1f-0e2d3c4b5a69"
        let jws = try JWSBuilder.transaction(tx, with: pki.jwsSigner)
        var refunded = tx
        refunded.revocationDate = later
        refunded.revocationReason = 1
        let notification = try JWSBuilder.notification(
            JWSBuilder.Notification(
                notificationType: "REFUND", notificationUUID: "9b0e8a3c-1d2f-4e5a-8b7c-6d5e4f3a2b1c",
                bundleID: bundle, signedDate: later, transaction: refunded),
            with: pki.jwsSigner)

        var google = GooglePurchaseBuilder.PurchaseData(
            orderID: "GPA.3372-4150-9088-12345", packageName: bundle,
            productID: "gems_550", purchaseTime: t,
            purchaseToken: "opaque-token-from-play", obfuscatedAccountID: "user-10042")
        google.acknowledged = true
        var test = google
        test.orderID = nil

        // Shapes servers keep that are judged, not refused: a JWS of a few fields (as Apple's
        // own fixtures sign them), an iOS 6 receipt without its signature, a Google `data`
        // stored as a JSON object (its bytes verbatim: it verifies), and a transaction's
        // decoded JSON with no JWS around it (unsigned).
        var fewFields = JWSBuilder.FewFields(bundleID: bundle, signedDate: t)
        fewFields.environment = "Production"
        let legacyUnsigned = LegacyReceiptBuilder.withoutSignature(
            LegacyReceiptBuilder.Spec(
                bundleID: bundle, productID: "com.example.game.gems100", itemID: "987654321",
                transactionID: "1000000012345679", purchaseDate: t))
        let objectData = try GooglePurchaseBuilder.payloadWithObject(
            originalJSON: google.originalJSON,
            signature: try GooglePurchaseBuilder.signature(of: google.originalJSON, with: pki.googleSigner),
            wrapper: .dataAndSignature, form: .verbatim)

        return [
            Base64.encode(appReceipt),
            Base64.encode(xcodeReceipt),
            legacy,
            response.text,
            forged.text,
            jws,
            "{\"signedPayload\":\"\(notification)\"}",
            try GooglePurchaseBuilder.payload(google, with: pki.googleSigner, wrapper: .dataAndSignature),
            try GooglePurchaseBuilder.payload(google, with: pki.googleSigner, wrapper: .base64DataAndSignature),
            try GooglePurchaseBuilder.payload(google, with: pki.googleSigner, wrapper: .unity),
            try GooglePurchaseBuilder.payload(test, with: pki.googleSigner, wrapper: .unsigned),
            try JWSBuilder.fewFields(fewFields, with: pki.jwsSigner),
            legacyUnsigned,
            objectData,
            JWSBuilder.decodedJSON(tx),
            "this line is not a receipt",
        ].joined(separator: "\n") + "\n"
    }
}
