import Foundation
import Testing

@testable import Ledger

/// A SQLite ledger its user may only read (issue 42): every command that only reads it runs,
/// and leaves the ledger's directory as it found it (docs/ledger.md).
@Suite("a ledger only read")
struct ReadOnlyLedgerTests {
    /// Runs through `run` every command that only reads the ledger of `l`, with the world's
    /// inputs (what they write goes to `out` beside it), and expects each to succeed and to
    /// leave the ledger's directory as it found it.
    static func expectEveryReadingCommand(_ l: ScreenedLedger, run: ([String]) throws -> ToolRun) throws {
        let (world, s, ledger) = (l.world, l.scratch, l.path)
        let out = s.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        chmod(out, 0o777)
        let order = try #require(try world.expectations().keys.min())
        let inputs = ["--rules", world.path + "/Rules", "--orders"] + world.orders + ["--receipts", world.receipts]
        let place = "sqlite:" + ledger
        let commands = [
            ["ledger", "status", "--ledger", place],
            ["explain", "--order", order, "--out", s.file("night"), "--ledger", place] + inputs,
            ["backtest", "--baseline", world.path + "/Rules", "--out", out + "/backtest", "--ledger", place] + inputs,
            [
                "consumption", "--store-events", world.storeEvents, "--now", try world.consumptionNow(),
                "--out", out + "/consumption", "--ledger", place,
            ] + inputs,
            ["ledger", "copy", "--from", place, "--to", "sqlite:" + out + "/copy.sqlite"],
        ]
        let before = try DirectoryPicture(ledger)
        for args in commands {
            let r = try run(args)
            #expect(r.status == 0, "\(args.prefix(2)): \(r.stderr)")
            let after = try DirectoryPicture(ledger)
            #expect(after == before, "\(args.prefix(2)): \(after.entries), was \(before.entries)")
        }
    }

    @Test(
        "every command that only reads a ledger whose file is read-only leaves its directory as it found it: no -wal, -shm or lock file, the ledger's bytes and time unchanged"
    )
    func leavesTheDirectory() throws {
        let l = try ScreenedLedger()
        chmod(l.path, 0o444)
        try Self.expectEveryReadingCommand(l) { args in try Tool.run(args) }
    }

    @Test(
        "a reviewer who may only read the ledger (file 0444, its folder 0555) runs every reading command, and leaves the folder as it was",
        .enabled(if: Unprivileged.available, "needs root and setpriv to run as nobody")
    )
    func unprivilegedReader() throws {
        let l = try ScreenedLedger()
        chmod(l.path, 0o444)
        chmod(l.scratch.file("ledger"), 0o555)
        defer { chmod(l.scratch.file("ledger"), 0o755) }
        try Self.expectEveryReadingCommand(l, run: Unprivileged.run)
    }

    @Test(
        "a ledger whose writer crashed is read with what its -wal holds, and its file is left as it was"
    )
    func crashedWriter() throws {
        let l = try ScreenedLedger()
        let (s, ledger) = (l.scratch, l.path)
        let order = try #require(try l.world.expectations().keys.min())
        let crashed = s.file("crashed/ledger.sqlite")
        try FileManager.default.createDirectory(atPath: s.file("crashed"), withIntermediateDirectories: false)
        do {
            // A verdict committed to the -wal, not yet into the file; the files as a kill leaves them.
            let writer = try SQLiteLedger(path: ledger)
            try writer.recordReview(orderID: order, Review(verdict: "fraud", note: nil, by: "ann", at: "2024-03-02"))
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(atPath: ledger + suffix, toPath: crashed + suffix)
            }
        }
        for suffix in ["", "-wal", "-shm"] { chmod(crashed + suffix, 0o444) }
        let file = try DirectoryPicture.file(crashed)
        let wal = try DirectoryPicture.file(crashed + "-wal")
        let names = try FileManager.default.contentsOfDirectory(atPath: s.file("crashed")).sorted()
        func run(_ args: [String]) throws -> ToolRun {
            try Unprivileged.available ? Unprivileged.run(args) : Tool.run(args)
        }
        if Unprivileged.available { chmod(s.file("crashed"), 0o555) }
        defer { chmod(s.file("crashed"), 0o755) }
        let status = try run(["ledger", "status", "--ledger", "sqlite:" + crashed])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("\nreviews: 1\n"), "the verdict only the -wal holds: \(status.stdout)")
        #expect(try DirectoryPicture.file(crashed) == file)
        #expect(try DirectoryPicture.file(crashed + "-wal") == wal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("crashed")).sorted() == names)
    }
}

/// The shared world screened once into `ledger/ledger.sqlite` of a scratch directory, its
/// reports in `night` there.
struct ScreenedLedger {
    let world: SampleWorld
    let scratch: Scratch
    let path: String

    init() throws {
        world = try SampleWorld.shared.get()
        scratch = try Scratch()
        path = scratch.file("ledger/ledger.sqlite")
        try FileManager.default.createDirectory(atPath: scratch.file("ledger"), withIntermediateDirectories: false)
        let r = try Tool.run(
            world.screenArguments(out: scratch.file("night"), ledger: "sqlite:" + path, storeEvents: true)
                + ["--quiet"])
        try #require(r.status == 0, "\(r.stderr)")
    }
}

/// What a reading command must not change of a ledger's directory: its entries (name, size,
/// modification time), the directory's own time (a file made and removed again changes it),
/// and the ledger's bytes.
struct DirectoryPicture: Equatable {
    var entries: [String]
    var directory: String
    var bytes: Data

    init(_ ledger: String) throws {
        let folder = (ledger as NSString).deletingLastPathComponent
        entries = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { name in
            "\(name) \(try Self.file(folder + "/" + name))"
        }
        directory = try Self.file(folder)
        bytes = try Data(contentsOf: URL(fileURLWithPath: ledger))
    }

    /// A file's size and modification time, to the nanosecond.
    static func file(_ path: String) throws -> String {
        var st = stat()
        try #require(lstat(path, &st) == 0, "cannot stat \(path)")
        return "\(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
    }
}

/// The tool run as `nobody`, who may only read what others made: how a reviewer without write
/// access runs it (root, which tests run as, ignores file modes).
enum Unprivileged {
    static let setpriv = "/usr/bin/setpriv"

    /// Root, setpriv, a tool nobody may run and scratch directories nobody may reach.
    static let available: Bool = {
        var tmp = stat()
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv),
            stat(NSTemporaryDirectory(), &tmp) == 0, tmp.st_mode & 0o001 != 0
        else { return false }
        return (try? run(["--version"]))?.status == 0
    }()

    static func run(_ args: [String]) throws -> ToolRun {
        try Tool.runProgram(
            setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", Tool.binary.path] + args,
            environment: ["HOME": "/nonexistent"])
    }
}
