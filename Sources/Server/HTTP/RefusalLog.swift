import Logging
import Synchronization

/// Logs every request answered with a 4xx — method, path (never the query, which may carry a token), status and
/// the problem's title and detail — at `info`, so an operator can see what was refused and why without a debug
/// log. A client that sends thousands of bad requests must not flood the log: at most `perSecond` lines in any
/// second of the wall clock; the refusals past that are counted, and the next line logged says how many were not
/// (`geotrigger_http_client_errors_total` counts every one).
final class RefusalLog: Sendable {
    static let shared = RefusalLog(perSecond: 20)

    private struct Window {
        var second: Int64 = 0
        var logged = 0
        var suppressed = 0
    }

    private let perSecond: Int
    private let window = Mutex(Window())
    /// The current second (the tests give their own).
    private let second: @Sendable () -> Int64

    init(perSecond: Int, second: @escaping @Sendable () -> Int64 = { (ContinuousClock.now - RefusalLog.origin).components.seconds }) {
        self.perSecond = perSecond
        self.second = second
    }

    func refused(method: String, path: String, status: Int, title: String, detail: String, logger: Logger) {
        let second = second()
        let suppressed: Int? = window.withLock { w in
            if w.second != second { w.second = second; w.logged = 0 }
            guard w.logged < perSecond else { w.suppressed += 1; return nil }
            w.logged += 1
            defer { w.suppressed = 0 }
            return w.suppressed
        }
        guard let suppressed else { return }
        var metadata: Logger.Metadata = ["method": "\(method)", "path": "\(path)", "status": "\(status)", "problem": "\(title)",
                                         "detail": "\(detail.count > 300 ? String(detail.prefix(300)) + "…" : detail)"]
        if suppressed > 0 { metadata["not_logged_before"] = "\(suppressed)" }
        logger.info("request refused", metadata: metadata)
    }

    static let origin = ContinuousClock.now
}
