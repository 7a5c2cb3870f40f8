import Decompression
import Ledger

/// Why a night stopped. The night has cleaned up after itself (the store-event reading
/// joined, the report sink abandoned, the ledger untouched); the command says it with
/// what was not done, and exits as `kind` says.
package struct NightFailure: Error, CustomStringConvertible {
    package enum Kind {
        /// An input, a spill file or a report could not be read or written (exit 3).
        case unreadable
        /// The ledger refused or failed; its code says how the command exits.
        case ledger(LedgerError)
    }

    package var kind: Kind
    /// What happened, without the command's name or what it left undone.
    package var description: String

    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// An input that could not be read: its path and why.
    package static func input(_ error: InputError) -> NightFailure {
        NightFailure(.unreadable, "cannot read \(error.path): \(error.reason)")
    }

}
