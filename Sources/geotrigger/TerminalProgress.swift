#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A one-line progress bar on stderr, only when stderr is a terminal: bytes done, rate, ETA.
struct TerminalProgress {
    let enabled = isatty(2) == 1
    let total: Int?
    let label: String
    var lastDraw = ContinuousClock.now
    let start = ContinuousClock.now

    init(total: Int?, label: String) {
        self.total = total
        self.label = label
    }

    mutating func update(bytes: Int, records: Int) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw > .milliseconds(200) else { return }
        lastDraw = now
        let elapsed = max(1e-9, (now - start).seconds)
        let rate = Double(records) / elapsed
        var line = "\r\(label) \(counted(records, "fix", "fixes")), \(Int(rate)) fixes/s"
        if let total, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            let width = 24
            let filled = Int(fraction * Double(width))
            let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            line += " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            line += String(format: " %3.0f%% ETA %.0fs", fraction * 100, eta)
        }
        FileHandle.standardError.write((line + "\u{1B}[K").data(using: .utf8)!)
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
