/// `backtest`'s candidate Rules directory, as the loader keeps it: its screening, and its
/// verdicts slot for slot beside the baseline's until `NightLoader.useCandidateVerdicts`
/// puts them in their place. Each receipt is decoded and verified once and judged under
/// both; the orders are kept once.
final class CandidateVerdicts {
    let screening: ReceiptScreening
    /// The candidate trusts other keys or apps: each receipt's signatures are checked again.
    let reverifies: Bool
    var verdicts: [NightLoader.Slot.Verdict] = []
    var rare: [NightLoader.Rare] = []
    var tokenHashes: [UInt64] = []

    init(screening: ReceiptScreening, reverifies: Bool) {
        self.screening = screening
        self.reverifies = reverifies
    }
}
