import Foundation
import IAPBasics
import ReceiptFormats

/// Everything a Rules directory says (docs/rules.md), checked as a whole: `load` returns every
/// problem it finds, each with file, line and column, or the loaded directory.
public struct RulesDirectory: Sendable {
    public var path: String
    public var settings = RuleSettings()
    public var catalog = Catalog()
    /// Our apps: bundle ids and package names per platform. Empty: `apps.csv` absent.
    public var apps: Set<AppKey> = []
    public var hasAppsFile = false
    public var reviewers = Reviewers()
    /// Files under `trust/apple/` and `trust/google/`, for the signature checks.
    public var appleTrustFiles: [String] = []
    public var googleKeyFiles: [String: String] = [:]
    /// Every file that shapes the run, sorted, for the Rules digest.
    public var files: [String] = []

    public struct AppKey: Sendable, Hashable {
        public var platform: Platform
        public var appID: String

        public init(platform: Platform, appID: String) {
            self.platform = platform
            self.appID = appID
        }
    }

    public func isOurApp(_ appID: String, platform: Platform) -> Bool {
        apps.contains(AppKey(platform: platform, appID: appID))
    }

    /// `named`: the rules the `.rules` files may tune (a test adds its own to the standard ones).
    public static func load(_ path: String, named: NamedRules = .standard) -> Result<RulesDirectory, RulesProblems> {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
            return .failure(
                RulesProblems(list: [
                    RulesDiagnostic(
                        file: path, message: "Rules directory not found",
                        hint: "pass --rules DIR, or create ./Rules (see Rules/README.md)")
                ]))
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        var (dir, problems) = parse(path, names: names, named: named) {
            FileManager.default.contents(atPath: (path as NSString).appendingPathComponent($0))
        }
        loadTrust(&dir)
        dir.files.sort()
        return problems.isEmpty ? .success(dir) : .failure(RulesProblems(list: problems))
    }

    /// A Rules directory given as its files' contents (name -> bytes), checked as `load`
    /// checks the directory `path` holding exactly those files; it has no `trust/` folder.
    public static func load(
        path: String, files: [String: [UInt8]],
        named: NamedRules = .standard
    ) -> Result<RulesDirectory, RulesProblems> {
        var (dir, problems) = parse(path, names: files.keys.sorted(), named: named) { name in
            files[name].map { Data($0) }
        }
        dir.files.sort()
        return problems.isEmpty ? .success(dir) : .failure(RulesProblems(list: problems))
    }

    /// Everything but the trust files, from the files `names` (sorted) whose bytes
    /// `contents` gives (nil: the file cannot be read).
    private static func parse(
        _ path: String, names: [String], named: NamedRules,
        contents: (String) -> Data?
    ) -> (RulesDirectory, [RulesDiagnostic]) {
        var dir = RulesDirectory(path: path)
        var problems: [RulesDiagnostic] = []
        func read(_ name: String) -> String? {
            let full = (path as NSString).appendingPathComponent(name)
            guard let data = contents(name) else {
                problems.append(RulesDiagnostic(file: full, message: "cannot read the file"))
                return nil
            }
            guard let text = String(data: data, encoding: .utf8) else {
                problems.append(RulesDiagnostic(file: full, message: "the file is not UTF-8 text"))
                return nil
            }
            dir.files.append(full)
            return text
        }
        let display = { (name: String) in (path as NSString).appendingPathComponent(name) }

        var parserState = RuleSettings(named: named)
        var exemptionsStated = false
        var exemptionTokens: [(name: String, token: RuleToken, line: String, lineNumber: Int, file: String)] = []
        for name in names where name.hasSuffix(".rules") {
            guard let text = read(name) else { continue }
            var parser = RulesFileParser(file: display(name), settings: parserState, exemptionsStated: exemptionsStated)
            parser.parse(text)
            parserState = parser.settings
            exemptionsStated = parser.exemptionsStated
            problems.append(contentsOf: parser.diagnostics)
            exemptionTokens += parser.exemptionTokens.map { ($0.name, $0.token, $0.line, $0.lineNumber, display(name)) }
        }
        let known = Set(parserState.named.ids.map(\.rawValue) + parserState.customRules.map(\.id))
        for e in exemptionTokens where !known.contains(e.name) {
            problems.append(
                RulesDiagnostic(
                    file: e.file, line: e.lineNumber, column: e.token.column, length: e.token.length,
                    message: "unknown rule '\(e.name)' in exempt",
                    hint: nearest(e.name, in: Array(known)).map { "did you mean '\($0)'?" },
                    sourceLine: e.line))
        }
        dir.settings = parserState

        if names.contains("catalog.csv"), let text = read("catalog.csv") {
            dir.catalog = loadCatalog(text, file: display("catalog.csv"), problems: &problems)
        }
        if names.contains("apps.csv"), let text = read("apps.csv") {
            dir.hasAppsFile = true
            dir.apps = loadApps(text, file: display("apps.csv"), problems: &problems)
        }
        if names.contains("reviewers.csv"), let text = read("reviewers.csv") {
            dir.reviewers = loadReviewers(text, file: display("reviewers.csv"), problems: &problems)
        }
        return (dir, problems)
    }

    // MARK: CSV files

    /// Parses a small CSV and finds the named columns; reports what is missing.
    static func table(
        _ text: String, file: String, required: [String], optional: [String] = [],
        problems: inout [RulesDiagnostic]
    ) -> (SmallCSV, [String: Int])? {
        let csv: SmallCSV
        switch SmallCSV.parse(text) {
        case .success(let c): csv = c
        case .failure(.unclosedQuote(let line)):
            problems.append(
                RulesDiagnostic(
                    file: file, line: line, message: "unclosed quote", hint: "close the quoted field with \""))
            return nil
        }
        if csv.header.isEmpty { return (csv, [:]) }
        var columns: [String: Int] = [:]
        for (i, h) in csv.header.enumerated() where columns[h] == nil { columns[h] = i }
        let missing = required.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            problems.append(
                RulesDiagnostic(
                    file: file, line: 1, message: "missing column(s) \(missing.joined(separator: ", "))",
                    hint: "the header is \((required + optional).joined(separator: ","))",
                    sourceLine: csv.header.joined(separator: ",")))
            return nil
        }
        return (csv, columns)
    }

    static func cell(_ row: SmallCSV.Row, _ columns: [String: Int], _ name: String) -> String {
        guard let i = columns[name], i < row.cells.count else { return "" }
        return row.cells[i].trimmingSpaces
    }

    static func loadCatalog(_ text: String, file: String, problems: inout [RulesDiagnostic]) -> Catalog {
        var catalog = Catalog()
        guard
            let (csv, cols) = table(
                text, file: file, required: ["item_id", "platform", "product_id", "type"],
                optional: ["price", "currency", "sample_content", "period_days"], problems: &problems)
        else { return catalog }
        var seen: [String: Int] = [:]
        for row in csv.rows {
            func bad(_ m: String, _ hint: String? = nil) {
                problems.append(
                    RulesDiagnostic(
                        file: file, line: row.line, message: m, hint: hint,
                        sourceLine: row.cells.joined(separator: ",")))
            }
            let item = cell(row, cols, "item_id")
            let product = cell(row, cols, "product_id")
            let platformText = cell(row, cols, "platform")
            let typeText = cell(row, cols, "type")
            let price = cell(row, cols, "price")
            let currency = cell(row, cols, "currency")
            guard !item.isEmpty, !product.isEmpty else {
                bad("item_id and product_id must not be empty")
                continue
            }
            guard let p = platform(named: platformText) else {
                bad("unknown platform '\(platformText)'", "ios or android")
                continue
            }
            guard let type = ProductType(catalogName: typeText) else {
                bad("unknown type '\(typeText)'", "consumable, non_consumable, auto_renewable or non_renewing")
                continue
            }
            guard price.isEmpty || isDecimal(price) else {
                bad("price '\(price)' is not a decimal amount", "e.g. 4.99")
                continue
            }
            guard price.isEmpty || !currency.isEmpty else {
                bad("a price needs a currency", "e.g. USD")
                continue
            }
            let sampleText = cell(row, cols, "sample_content")
            guard let sample = sampleContent(sampleText) else {
                bad("sample_content '\(sampleText)' is not yes or no", "yes: a free sample or trial was offered first")
                continue
            }
            let periodText = cell(row, cols, "period_days")
            let period = Int(periodText)
            guard periodText.isEmpty || (period.map { (1...3660).contains($0) } ?? false) else {
                bad("period_days '\(periodText)' is not a whole number of days from 1 to 3660", "e.g. 30")
                continue
            }
            let key = "\(item)|\(p.rawValue)"
            if let first = seen[key] {
                bad("item \(item) is listed twice for \(p.rawValue)", "first at line \(first)")
                continue
            }
            seen[key] = row.line
            catalog.add(
                Catalog.Entry(
                    itemID: item, platform: p, productID: product, type: type, price: price,
                    currency: currency.uppercased(), sampleContent: sample, periodDays: period))
        }
        return catalog
    }

    /// `yes`/`true`/`1`, `no`/`false`/`0` or empty (no), any case; nil for anything else.
    private static func sampleContent(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "1": true
        case "", "no", "false", "0": false
        default: nil
        }
    }

    static func loadApps(_ text: String, file: String, problems: inout [RulesDiagnostic]) -> Set<AppKey> {
        var apps: Set<AppKey> = []
        guard let (csv, cols) = table(text, file: file, required: ["platform", "app_id"], problems: &problems) else {
            return apps
        }
        for row in csv.rows {
            let p = cell(row, cols, "platform")
            let id = cell(row, cols, "app_id")
            guard let platform = platform(named: p), !id.isEmpty else {
                problems.append(
                    RulesDiagnostic(
                        file: file, line: row.line, message: "needs a platform (ios or android) and an app_id",
                        sourceLine: row.cells.joined(separator: ",")))
                continue
            }
            apps.insert(AppKey(platform: platform, appID: id))
        }
        return apps
    }

    static func loadReviewers(_ text: String, file: String, problems: inout [RulesDiagnostic]) -> Reviewers {
        guard
            let (csv, cols) = table(
                text, file: file, required: ["user_id"], optional: ["from", "until", "note"],
                problems: &problems)
        else { return Reviewers() }
        var list: [Reviewers.Window] = []
        for row in csv.rows {
            func bad(_ m: String) {
                problems.append(
                    RulesDiagnostic(
                        file: file, line: row.line, message: m,
                        hint: "dates as 2024-03-01 or 2024-03-01T12:00:00Z; empty until = open-ended",
                        sourceLine: row.cells.joined(separator: ",")))
            }
            let user = cell(row, cols, "user_id")
            let fromText = cell(row, cols, "from")
            let untilText = cell(row, cols, "until")
            guard !user.isEmpty else {
                bad("user_id must not be empty")
                continue
            }
            var from: Timestamp?
            var until: Timestamp?
            if !fromText.isEmpty {
                guard let t = Timestamp.parseDay(fromText)?.lowerBound ?? Timestamp.parse(fromText) else {
                    bad("from '\(fromText)' is not a date")
                    continue
                }
                from = t
            }
            if !untilText.isEmpty {
                guard let t = Timestamp.parseDay(untilText)?.upperBound ?? Timestamp.parse(untilText) else {
                    bad("until '\(untilText)' is not a date")
                    continue
                }
                until = t
            }
            if let f = from, let u = until, u < f {
                bad("until is before from")
                continue
            }
            list.append(Reviewers.Window(userID: user, from: from, until: until, note: cell(row, cols, "note")))
        }
        return Reviewers(list)
    }

    static func loadTrust(_ dir: inout RulesDirectory) {
        let fm = FileManager.default
        let apple = (dir.path as NSString).appendingPathComponent("trust/apple")
        for name in ((try? fm.contentsOfDirectory(atPath: apple)) ?? []).sorted() {
            let lower = name.lowercased()
            guard [".cer", ".der", ".crt", ".pem"].contains(where: { lower.hasSuffix($0) }) else { continue }
            let full = (apple as NSString).appendingPathComponent(name)
            dir.appleTrustFiles.append(full)
            dir.files.append(full)
        }
        let google = (dir.path as NSString).appendingPathComponent("trust/google")
        for name in ((try? fm.contentsOfDirectory(atPath: google)) ?? []).sorted() {
            for ext in [".pem", ".pub"] where name.hasSuffix(ext) {
                let full = (google as NSString).appendingPathComponent(name)
                dir.googleKeyFiles[String(name.dropLast(ext.count))] = full
                dir.files.append(full)
            }
        }
    }
}

/// Every problem a Rules directory has, in file order.
public struct RulesProblems: Error, Sendable {
    public var list: [RulesDiagnostic]
}

/// `4.99`, `10`, `0.5`: digits with at most one decimal point, no sign, no exponent.
public func isDecimal(_ s: String) -> Bool {
    var dot = false
    var digits = 0
    for c in s.utf8 {
        if c == 0x2E {
            guard !dot else { return false }
            dot = true
        } else if c >= 0x30, c <= 0x39 {
            digits += 1
        } else {
            return false
        }
    }
    return digits > 0 && s.utf8.last != 0x2E && s.utf8.first != 0x2E
}
