import Foundation
import IAPBasics

/// Where a backtest's time and memory went (IAPSCREEN_TIMINGS).
struct BacktestTimes {
    let started: Double
    private var loadedAt: Double
    private var lanesAt: Double
    private var loadedRSS = 0

    init(started: Double) {
        self.started = started
        loadedAt = started
        lanesAt = started
    }

    mutating func loaded() {
        loadedAt = SystemClock.monotonicSeconds()
        lanesAt = loadedAt
        loadedRSS = ProcessMemory.peakRSSMiB()
    }

    mutating func lanesDone() { lanesAt = SystemClock.monotonicSeconds() }

    var line: String {
        String(
            format:
                "timings: load %.2f s, both Rules' claims and reports %.2f s, comparing and writing %.2f s; "
                + "peak RSS %d MiB after the load, %d MiB at the end",
            loadedAt - started, lanesAt - loadedAt, SystemClock.monotonicSeconds() - lanesAt, loadedRSS,
            ProcessMemory.peakRSSMiB())
    }
}
