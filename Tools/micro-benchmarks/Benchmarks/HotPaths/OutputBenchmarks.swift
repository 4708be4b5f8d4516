import Benchmark
import Foundation
import JSON
import TriggerEngine

/// Notification output: SPEC §4 objects rendered to bytes, and firings from the engine through to bytes.
enum OutputBenchmarks {
    static func register() {
        // 1,000 real notifications (entries and exits of 500 devices at one circle), rendered again and again into
        // one reused buffer: the NDJSON sink's and the journal's work per notification.
        Benchmark("Output.notificationJSON") { benchmark, notifications in
            var w = JSONWriter(capacity: 1 << 20)
            for k in benchmark.scaledIterations {
                if k % notifications.count == 0 { w.bytes.removeAll(keepingCapacity: true) }
                notifications[k % notifications.count].writeJSON(to: &w)
            }
            blackHole(w.bytes.count)
        } setup: {
            try Fixtures.firings(count: 1_000)
        }

        // The target: ~700-byte notifications from 1,000 requests rendered as NDJSON lines into a 256 KiB
        // buffer and written to a file (pwrite over the first 64 MiB, so the file stays in the page cache).
        Benchmark("Output.linesWritten700B") { (benchmark, fixture: ([FiredNotification], Int32)) in
            let (notifications, fd) = fixture
            var w = JSONWriter(capacity: 1 << 18 + 4_096)
            var offset: Int64 = 0
            func flush() {
                w.bytes.withUnsafeBytes { b in _ = pwrite(fd, b.baseAddress, b.count, off_t(offset)) }
                offset = (offset + Int64(w.bytes.count)) % (64 << 20)
                w.bytes.removeAll(keepingCapacity: true)
            }
            for k in benchmark.scaledIterations {
                notifications[k % notifications.count].writeJSON(to: &w)
                w.bytes.append(10)
                if w.bytes.count >= 1 << 18 { flush() }
            }
            flush()
        } setup: {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-micro-\(getpid()).ndjson").path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            unlink(path)  // gone when the process ends
            return (try Fixtures.richFirings(count: 10_000), Int32(fd))
        }

        // The engine firing (a transition on every fix, its notification built) and the notification rendered.
        Benchmark("Output.firingAndRendering") { benchmark, fixture in
            var w = JSONWriter(capacity: 1 << 20)
            let (engine, fixes) = fixture
            for k in benchmark.scaledIterations {
                w.bytes.removeAll(keepingCapacity: true)
                _ = engine.process(fixes.next(k)) { $0.writeJSON(to: &w) }
            }
            blackHole(w.bytes.count)
        } setup: {
            try Fixtures.alternatingEngine()
        }
    }
}
