// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way: executable -> IAPScreenCore -> Night -> {formats, adapters} -> basics.
// Pure modules (IAPBasics, JSONText, HTTPMessages, DumpFormats, ReceiptFormats) import no C library,
// except DumpFormats through the two small adapters Decompression and XMLStream.
let package = Package(
    name: "iapscreen",
    products: [
        .executable(name: "iapscreen", targets: ["iapscreen"]),
        .executable(name: "iapscreen-bench", targets: ["iapscreen-bench"]),
    ],
    targets: [
        // System libraries: one modulemap + shim.h each.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CISAL", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // The process's allocator (see its shim.h); only the executable links it.
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),

        // Pure building blocks.
        .target(name: "IAPBasics"),
        .target(name: "JSONText", dependencies: ["IAPBasics"]),

        // The review desk's requests, read from their bytes, and its answers.
        .target(name: "HTTPMessages", dependencies: ["IAPBasics", "JSONText"]),

        // Adapters over C libraries.
        .target(name: "Decompression", dependencies: ["CZlib", "CISAL", "IAPBasics"]),
        .target(name: "XMLStream", dependencies: ["CLibXML2", "IAPBasics"]),
        .target(name: "StoreCrypto", dependencies: ["COpenSSL", "IAPBasics"]),
        .target(name: "PostgresClient", dependencies: ["CLibPQ"]),
        .target(name: "SQLiteClient", dependencies: ["CSQLite3"]),
        // The desk's secrets over libsodium: Argon2id password hashes, session and CSRF tokens.
        .target(name: "DeskSecurity", dependencies: ["CSodium"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "HTTPMessages"]),
        .target(
            name: "Ledger",
            dependencies: ["SQLiteClient", "PostgresClient", "IAPBasics", "Screening", "Decompression", "JSONText"]),

        // Formats.
        .target(name: "DumpFormats", dependencies: ["IAPBasics", "JSONText", "Decompression", "XMLStream"]),
        .target(name: "ReceiptFormats", dependencies: ["IAPBasics", "JSONText"]),

        // Store reports (Google Play sales and earnings, Apple Sales Summary) -> typed rows.
        .target(name: "StoreReports", dependencies: ["IAPBasics", "Decompression", "DumpFormats"]),

        // What the stores said after the credit: notifications, refund history, voided
        // purchases, RTDN, recognised by content and read as a stream.
        .target(
            name: "StoreEvents",
            dependencies: ["IAPBasics", "JSONText", "Decompression", "DumpFormats", "ReceiptFormats"]),

        // Our credits against the stores' reports: matching and buckets, pure.
        .target(name: "Reconciliation", dependencies: ["IAPBasics", "StoreReports"]),

        // The rule engine and the Rules directory: pure.
        .target(name: "Screening", dependencies: ["IAPBasics", "JSONText", "ReceiptFormats"]),

        // Answers to refund requests (Apple's CONSUMPTION_REQUEST): pure.
        .target(
            name: "Consumption", dependencies: ["IAPBasics", "JSONText", "DumpFormats", "ReceiptFormats", "Screening"]),

        // Flagged-order reports: pure.
        .target(name: "Reporting", dependencies: ["IAPBasics", "JSONText", "Screening"]),

        // The review desk's pages as functions of the ledger's records, and the script and style
        // sheet they load (files the server reads at start): pure.
        .target(
            name: "DeskPages", dependencies: ["Ledger", "Screening", "JSONText", "IAPBasics"],
            resources: [.copy("Assets")]),
        // The review desk: sessions, CSRF, roles, the API and the pages' routes, over the ledger.
        .target(
            name: "Desk",
            dependencies: ["Ledger", "HTTPMessages", "DeskSecurity", "DeskPages", "JSONText", "IAPBasics", "Screening"]),

        // Believes only what verifies: signatures and chains of every receipt kind.
        .target(name: "ReceiptVerification", dependencies: ["IAPBasics", "JSONText", "ReceiptFormats", "StoreCrypto"]),

        // Test support, never imported by the ledger, the formats or the verifiers: receipt
        // builders and test keys (tests, `samples`, the benchmark), and the sample worlds
        // `samples` writes (the only way it reaches the commands).
        .target(name: "ReceiptBuilder", dependencies: ["IAPBasics", "JSONText", "ReceiptFormats", "StoreCrypto"]),
        .target(
            name: "SampleWorld",
            dependencies: [
                "IAPBasics", "JSONText", "Decompression", "ReceiptFormats", "ReceiptBuilder", "Screening", "Reporting",
            ]),

        // One night, as every command reads and screens it: the inputs, the Rules, the
        // ledger, the shard a worker owns, what is watched. No test support, no command line.
        .target(
            name: "Night",
            dependencies: [
                "IAPBasics", "JSONText", "Decompression", "DumpFormats", "ReceiptFormats", "StoreCrypto",
                "Screening", "Ledger", "Reporting", "ReceiptVerification", "StoreReports", "Reconciliation",
                "StoreEvents", "Consumption",
            ]),

        // The commands: their arguments and their outputs; `samples` reaches the sample worlds.
        .target(
            name: "IAPScreenCore",
            dependencies: [
                "IAPBasics", "JSONText", "Decompression", "DumpFormats", "ReceiptFormats", "StoreCrypto",
                "SampleWorld", "ReceiptBuilder", "Night", "Desk", "DeskPages", "DeskSecurity", "HTTPServer",
                "Screening", "Ledger", "Reporting", "ReceiptVerification", "StoreReports", "Reconciliation",
                "Consumption",
            ]),
        .executableTarget(name: "iapscreen", dependencies: ["IAPScreenCore", "CMimalloc"]),
        .executableTarget(
            name: "iapscreen-bench",
            dependencies: [
                "IAPBasics", "ReceiptBuilder", "DumpFormats", "ReceiptFormats", "JSONText", "Decompression",
                "ReceiptVerification", "StoreCrypto", "Ledger", "PostgresClient", "Screening", "DeskSecurity",
                "LoopbackHTTP",
            ]),

        .testTarget(name: "IAPBasicsTests", dependencies: ["IAPBasics"]),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText", "IAPBasics"]),
        .testTarget(name: "HTTPMessagesTests", dependencies: ["HTTPMessages", "JSONText"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPMessages", "JSONText"]),
        .testTarget(name: "DecompressionTests", dependencies: ["Decompression", "IAPBasics"]),
        .testTarget(name: "DumpFormatsTests", dependencies: ["DumpFormats", "Decompression", "IAPBasics"]),
        .testTarget(
            name: "ReceiptFormatsTests", dependencies: ["ReceiptFormats", "ReceiptBuilder", "JSONText", "IAPBasics"]),
        .testTarget(name: "ScreeningTests", dependencies: ["Screening", "IAPBasics", "ReceiptFormats"]),
        .testTarget(
            name: "ConsumptionTests",
            dependencies: ["Consumption", "Screening", "DumpFormats", "IAPBasics", "JSONText", "ReceiptFormats"]),
        .testTarget(name: "StoreReportsTests", dependencies: ["StoreReports", "Decompression", "IAPBasics"]),
        .testTarget(
            name: "StoreEventsTests",
            dependencies: [
                "StoreEvents", "ReceiptBuilder", "ReceiptFormats", "IAPBasics", "JSONText", "Decompression",
                "DumpFormats",
            ]),
        .testTarget(name: "ReconciliationTests", dependencies: ["Reconciliation", "StoreReports", "IAPBasics"]),
        // A keep-alive HTTP/1.1 client on loopback, and the values the desk's tests and its benchmark
        // read out of its answers (a hidden field, a JSON string or number).
        .target(name: "LoopbackHTTP", path: "Tests/LoopbackHTTP"),
        // The test PostgreSQL server and a database of its own per test, for the tests that need one.
        .target(name: "PostgresTestSupport", dependencies: ["PostgresClient"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient", "PostgresTestSupport"]),
        // A headless Chromium driven over W3C WebDriver by a chromedriver of its own, for the tests that
        // use a served page as a person does.
        .target(name: "WebDriverSupport", path: "Tests/WebDriverSupport"),
        .testTarget(name: "WebDriverSupportTests", dependencies: ["WebDriverSupport"]),
        .testTarget(name: "SQLiteClientTests", dependencies: ["SQLiteClient"]),
        .testTarget(
            name: "LedgerTests",
            dependencies: [
                "Ledger", "PostgresClient", "PostgresTestSupport", "IAPBasics", "Screening", "Decompression",
            ]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "IAPBasics", "JSONText", "Screening"]),
        .testTarget(
            name: "DeskPagesTests", dependencies: ["DeskPages", "Ledger", "JSONText", "IAPBasics"]),
        .testTarget(name: "StoreCryptoTests", dependencies: ["StoreCrypto", "IAPBasics"]),
        .testTarget(
            name: "DeskTests",
            dependencies: [
                "Desk", "DeskPages", "DeskSecurity", "Ledger", "HTTPMessages", "IAPBasics", "SQLiteClient",
                "PostgresTestSupport", "PostgresClient", "LoopbackHTTP",
            ]),
        .testTarget(name: "DeskSecurityTests", dependencies: ["DeskSecurity", "CSodium"]),
        .testTarget(
            name: "ReceiptVerificationTests",
            dependencies: [
                "ReceiptVerification", "ReceiptBuilder", "StoreCrypto", "IAPBasics", "JSONText", "ReceiptFormats",
            ]),
        .testTarget(
            name: "HostileInputTests",
            dependencies: [
                "IAPBasics", "JSONText", "DumpFormats", "Decompression", "ReceiptFormats", "Screening",
                "ReceiptVerification",
                "StoreReports", "StoreEvents", "Reporting",
            ], resources: [.copy("Corpus")]),
        .testTarget(
            name: "ReceiptBuilderTests",
            dependencies: [
                "ReceiptBuilder", "StoreCrypto", "IAPBasics", "JSONText", "ReceiptFormats", "ReceiptVerification",
            ]),
        .testTarget(
            name: "IAPScreenCoreTests",
            dependencies: [
                "IAPScreenCore", "Night", "ReceiptBuilder", "JSONText", "Ledger", "Decompression", "PostgresClient",
                "PostgresTestSupport", "IAPBasics", "SQLiteClient", "LoopbackHTTP", "WebDriverSupport", "Consumption",
                "DumpFormats", "ReceiptFormats", "Reporting", "Screening", "StoreCrypto",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// A release build links the Swift runtime and Foundation into the executables: calls into
// them skip the PLT and start-up resolves far fewer symbols (measured on `screen` of 200k
// orders: 2 % less CPU, 5 MiB less resident). SwiftPM's `--static-swift-stdlib`, made the
// default: every module is compiled for it (Foundation's static libraries bring their own
// link dependencies). Debug builds and the tests (and their support, which needs the
// dynamic Testing library) stay dynamic.
for target in package.targets
where [.regular, .executable].contains(target.type) && !target.name.hasSuffix("TestSupport") {
    let staticRuntime = SwiftSetting.unsafeFlags(["-static-stdlib"], .when(configuration: .release))
    target.swiftSettings = (target.swiftSettings ?? []) + [staticRuntime]
    if target.type == .executable {
        let linkStatic = LinkerSetting.unsafeFlags(["-static-stdlib"], .when(configuration: .release))
        target.linkerSettings = (target.linkerSettings ?? []) + [linkStatic]
    }
}
