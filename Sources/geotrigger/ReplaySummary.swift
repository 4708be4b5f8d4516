import Foundation
import Ingest
import TriggerEngine

/// What a replay did, printed on standard error at the end.
struct ReplaySummary {
    var regionCount: Int
    var fixesRead = 0
    var ingestErrors: [String: Int] = [:]
    var listed = 0
    var engineRejected: [FixRejection: Int] = [:]
    /// The notifications written, counted where they are written (`NotificationWriterThread`).
    var tally = NotificationTally()
    /// Trace files skipped whole or from the point they failed.
    var skippedFiles: [String] = []
    var warnings = 0
    var elapsed = 0.0
    var engine = EngineStatistics()
    /// `--rejections`: where every refused record was written.
    var rejectionLog: String?

    mutating func reject(_ reason: FixRejection) { engineRejected[reason, default: 0] += 1 }

    mutating func ingestError(_ e: IngestError, listUpTo limit: Int) {
        ingestErrors[e.kind, default: 0] += 1
        if listed < limit {
            FileHandle.standardError.write("rejected: \(e)\n".data(using: .utf8)!)
            listed += 1
        }
    }

    mutating func skip(_ path: String, _ reason: String) {
        skippedFiles.append(path)
        FileHandle.standardError.write("geotrigger: \(reason) (skipped)\n".data(using: .utf8)!)
    }

    mutating func warn(_ w: IngestWarning) {
        warnings += 1
        FileHandle.standardError.write(w.commandLineText.data(using: .utf8)!)
    }

    func print() {
        var s = "replay summary\n"
        s += "  regions            \(regionCount)\n"
        if !skippedFiles.isEmpty {
            let shown = skippedFiles.prefix(5).joined(separator: ", ") + (skippedFiles.count > 5 ? ", …" : "")
            s += "  files skipped      \(skippedFiles.count) (\(shown))\n"
        }
        s += "  fixes read         \(fixesRead)\n"
        s += "  fixes evaluated    \(engine.fixesEvaluated)\n"
        let rejectedIngest = ingestErrors.values.reduce(0, +)
        s += "  records rejected   \(rejectedIngest)\(rejectedIngest > 0 ? " (" + ingestErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")" : "")\n"
        for (reason, count) in engineRejected.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            s += "  fixes dropped      \(count) \(reason.rawValue) (\(reason))\n"
        }
        let refusedCount = ingestErrors.values.reduce(0, +) + engineRejected.values.reduce(0, +)
        if let rejectionLog, refusedCount > 0 {
            s += "  refused records    all \(refusedCount) written to \(rejectionLog)\n"
        } else if refusedCount > listed {
            s += "  not listed         \(refusedCount - listed) refused records (--rejections FILE writes every one)\n"
        }
        if warnings > 0 { s += "  warnings           \(warnings) (above)\n" }
        s += "  transitions        \(counted(engine.entries, "entry", "entries")), \(counted(engine.exits, "exit"))\n"
        let transitions = tally.transitions
        for (region, t) in transitions.sorted(by: { $0.key < $1.key }).prefix(30) {
            s += "    \(region): \(t.entries) entry, \(t.exits) exit notifications\n"
        }
        if transitions.count > 30 { s += "    … \(transitions.count - 30) more regions\n" }
        if engine.dwellsCancelled > 0 { s += "  dwells cancelled   \(engine.dwellsCancelled)\n" }
        if engine.suppressedByMinimumInterval > 0 {
            s += "  suppressed         \(engine.suppressedByMinimumInterval) (minimumInterval)\n"
        }
        s += "  notifications      \(tally.notifications)\n"
        let rate = elapsed > 0 ? Double(fixesRead) / elapsed : 0
        s += String(format: "  throughput         %.0f fixes/s (%.3f s)\n", rate, elapsed)
        FileHandle.standardError.write(s.data(using: .utf8)!)
    }
}
