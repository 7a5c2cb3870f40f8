import IAPBasics
import JSONText

/// What every JWS payload may carry.
enum JWSPayloadCommon {
    /// `appAppleId` (older tokens: `appItemID`), also kept in extras as `app_apple_id`.
    static func appAppleID(
        _ f: StoreJSONFields,
        extras: inout [(key: String, value: JSONValue)]
    ) throws(DecodeError) -> Int64? {
        let key = f.has("appAppleId") ? "appAppleId" : "appItemID"
        guard let id = try f.integer(key) else { return nil }
        extras.append(("app_apple_id", .integer(id)))
        return id
    }
}
