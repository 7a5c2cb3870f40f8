import IAPBasics
import JSONText
import ReceiptFormats
import ReceiptVerification
import Screening

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen decode [PATH|-] [--rules DIR]`: one JSON object per payload on stdout.
enum DecodeCommand {
    static let spec = CommandSpec(
        name: "decode",
        summary: "Decode store receipts and print what they say, one JSON object per payload.",
        options: [
            OptionSpec(
                "--rules", .one, valueName: "DIR",
                help: "Rules directory whose trust anchors check signatures (default: none, signatures unchecked).")
        ],
        positional: PositionalSpec(
            "PATH|-", "File of payloads, one per line, or one raw-DER / wrapped base64 receipt; - or none: stdin.",
            max: 1),
        details: """
            Recognises Apple app receipts (base64 or DER), iOS 6 transaction receipts, stored
            verifyReceipt JSON, App Store JWS (and a transaction's decoded JSON, unsigned) and
            Google Play purchases by their content. An iOS 6 receipt's environment is not
            signed: it is printed as written with "environment_verified": false.
            A payload that cannot be decoded prints {"line", "error", "reason", "offset"};
            the command still exits 0.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        var verifier = ReceiptVerifier()
        if let path = args.one("--rules") {
            switch RulesDirectory.load(path) {
            case .failure(let problems):
                for p in problems.list { io.error(p.description) }
                return .usage
            case .success(let rules):
                do {
                    verifier = try ReceiptVerifier(
                        appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
                } catch {
                    io.error("\(error.path): error: \(error.reason)")
                    return .usage
                }
            }
        }
        let path = args.positionals.first ?? "-"
        let fd: Int32 = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else {
            io.error("iapscreen decode: cannot open '\(path)': \(String(cString: strerror(errno)))")
            return .unreadableInput
        }
        defer { if fd != 0 { close(fd) } }
        let limits = Limits.standard
        let writer = JSONWriter()
        let splitter = PayloadSplitter(fd: fd, limits: limits)
        do throws(PayloadSplitter.ReadError) {
            let decodes: ([UInt8]) -> Bool = { (try? ReceiptDecoder.decode($0, limits: limits)) != nil }
            try splitter.forEach(acceptsWhole: decodes) { payload in
                let object: JSONObject
                do throws(DecodeError) {
                    let receipt = try ReceiptDecoder.decode(payload.bytes, limits: limits)
                    let (status, forgery) = verifier.verify(receipt)
                    object = ReceiptJSON.object(receipt, line: payload.line, signature: status, forgery: forgery)
                } catch {
                    object = ReceiptJSON.error(error, line: payload.line)
                }
                var out = [UInt8]()
                writer.write(.object(object), to: &out)
                out.append(0x0A)
                io.out.write(bytes: out)
            }
        } catch {
            io.out.flush()
            io.error("iapscreen decode: cannot read '\(path)': \(error.reason)")
            return .unreadableInput
        }
        return .ok
    }
}
