import Testing

@testable import ReceiptFormats

@Suite("App Store payload fields")
struct AppStoreFieldTests {
    @Test("each field is spelt as its case, found from its spelling alone, and has a slot in a scanned payload")
    func spellings() {
        #expect(AppStoreField.transactionId.spelling == "transactionId")
        #expect(AppStoreField.appItemID.spelling == "appItemID")
        #expect(AppStoreField.notificationUUID.spelling == "notificationUUID")
        #expect(AppStoreField.allCases.count <= 64, "a scanned payload keeps 64 slots")
        for field in AppStoreField.allCases {
            #expect(AppStoreField(spelling: field.spelling) == field)
            #expect(AppStoreField(spelling: field.spelling + "x") == nil)
            #expect(AppStoreField(spelling: String(field.spelling.dropLast())) == nil)
        }
        #expect(AppStoreField(spelling: "TransactionId") == nil)
        #expect(AppStoreField(spelling: "") == nil)
    }
}
