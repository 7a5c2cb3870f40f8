import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Testing

@Suite("Stored verifyReceipt JSON against its signed latest_receipt")
struct VerifyReceiptForgeryTests {
    /// Apple's answer for a receipt whose subscription (transaction 1000) expired 2020-05-01.
    private func genuineResponse() throws -> VerifyReceiptBuilder.Response {
        let spec = try Make.appReceiptSpec(created: "2020-04-15T00:00:00Z")
        let signed = try AppReceiptBuilder.build(spec, signedBy: VerificationWorld.ours().appReceiptSigner)
        var response = VerifyReceiptBuilder.Response(
            bundleID: spec.bundleID, appItemID: spec.appItemID,
            receiptCreationDate: spec.creationDate)
        let transactions = spec.purchases.map { purchase in
            var transaction = VerifyReceiptBuilder.Transaction(
                productID: purchase.productID,
                transactionID: purchase.transactionID,
                purchaseDate: purchase.purchaseDate)
            transaction.expiresDate = purchase.expiresDate
            return transaction
        }
        response.inApp = transactions
        response.latestReceiptInfo = Array(transactions.prefix(1))
        response.latestReceipt = Base64.encode(signed)
        return response
    }

    @Test("Apple's genuine answer is valid and not forged")
    func genuine() throws {
        let result = try VerificationWorld.verifier().verify(Make.decode(genuineResponse().text))
        #expect(result.status.verdict == .valid, "\(result.status.reason)")
        #expect(result.forgery == nil)
    }

    @Test("an answer whose expiry was extended past its signed receipt is forged, naming the transaction")
    func extendedExpiry() throws {
        let extended = try Make.time("2029-05-01T00:00:00Z")
        let forged = try genuineResponse().rewritingClaims(of: "1000") { $0.expiresDate = extended }
        let result = try VerificationWorld.verifier().verify(Make.decode(forged.text))
        #expect(
            result.forgery
                == "transaction 1000 expires 2029-05-01T00:00:00Z in the JSON, 2020-05-01T00:00:00Z in the signed receipt"
        )
        #expect(result.status == SignatureStatus(.invalid, "forged: JSON contradicts its signed receipt"))
    }

    @Test("an answer claiming another product, a purchase the receipt lacks, or another app is forged")
    func otherContradictions() throws {
        let verifier = try VerificationWorld.verifier()
        let product = try genuineResponse().rewritingClaims(of: "1001") { $0.productID = "com.example.game.gems10000" }
        #expect(
            verifier.verify(try Make.decode(product.text)).forgery
                == "transaction 1001 is product com.example.game.gems10000 in the JSON, com.example.game.coins in the signed receipt"
        )

        var extra = try genuineResponse()
        extra.inApp.append(
            VerifyReceiptBuilder.Transaction(
                productID: "com.example.game.coins", transactionID: "1999",
                purchaseDate: try Make.time("2020-04-10T00:00:00Z")))
        #expect(
            verifier.verify(try Make.decode(extra.text)).forgery
                == "transaction 1999 is in the JSON but not in the signed receipt")

        var otherApp = try genuineResponse()
        otherApp.bundleID = "com.example.other"
        #expect(
            verifier.verify(try Make.decode(otherApp.text)).forgery
                == "bundle id com.example.other in the JSON, com.example.game in the signed receipt")

        let refund = try Make.time("2020-04-20T00:00:00Z")
        let refundInvented = try genuineResponse().rewritingClaims(of: "1002") { $0.cancellationDate = refund }
        #expect(
            verifier.verify(try Make.decode(refundInvented.text)).forgery
                == "transaction 1002 cancelled 2020-04-20T00:00:00Z in the JSON, (none) in the signed receipt")
    }

    @Test("an answer showing fewer transactions than its signed receipt is not forged")
    func fewerTransactions() throws {
        var response = try genuineResponse()
        response.inApp.removeLast()
        let result = try VerificationWorld.verifier().verify(Make.decode(response.text))
        #expect(result.status.verdict == .valid)
        #expect(result.forgery == nil)
    }

    @Test("an answer whose latest_receipt is garbage is invalid, worse than none")
    func garbageLatestReceipt() throws {
        var response = try genuineResponse()
        response.latestReceipt = Base64.encode(Array("not a receipt at all".utf8))
        let result = try VerificationWorld.verifier().verify(Make.decode(response.text))
        #expect(result.status == SignatureStatus(.invalid, "forged: latest_receipt present but undecodable"))
        #expect(result.forgery?.hasPrefix("latest_receipt is present but undecodable") == true)
    }

    @Test("an answer without latest_receipt is only a claim: unsigned")
    func noLatestReceipt() throws {
        var response = try genuineResponse()
        response.latestReceipt = nil
        let result = try VerificationWorld.verifier().verify(Make.decode(response.text))
        #expect(result.status.verdict == .unsigned)
        #expect(result.forgery == nil)
    }

    @Test("an answer whose latest_receipt does not verify takes its reason")
    func untrustedLatestReceipt() throws {
        var response = try genuineResponse()
        let spec = try Make.appReceiptSpec(created: "2020-04-15T00:00:00Z")
        let forged = try AppReceiptBuilder.build(spec, signedBy: VerificationWorld.forger().appReceiptSigner)
        response.latestReceipt = Base64.encode(forged)
        let result = try VerificationWorld.verifier().verify(Make.decode(response.text))
        #expect(result.status == SignatureStatus(.invalid, "latest_receipt: untrusted root"))
    }
}
