import Foundation

extension Process {
    /// Waits for the child to exit without holding a thread of the concurrency pool. `waitUntilExit()` blocks its
    /// thread for the child's whole life; this machine's pool has two, and two tests waiting on children that way
    /// stall every other test in the process (in-process servers' handlers, deadlines measured meanwhile).
    public func exited() async {
        while isRunning {
            do { try await Task.sleep(for: .milliseconds(5)) } catch {
                // Cancelled: the caller still needs the child gone before reading its status.
                waitUntilExit()
                return
            }
        }
    }

    /// Whether the child has exited, by the kernel's word: gone, or a zombie nobody has reaped. Foundation's own
    /// `isRunning` waits for it to reap the child, and once (a cluster test's restarted instance, 2026-11-29) it
    /// never did: the child lay a zombie while `waitUntilExit()` spun for good.
    public var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state == "Z" || state == "X"
    }

    /// `waitUntilExit()` that also ends when the kernel says the child has exited (`hasEnded`), for a caller that
    /// needs it gone but not its status (which Foundation has only once it reaped the child).
    public func waitUntilEnded() {
        while isRunning && !hasEnded { Thread.sleep(forTimeInterval: 0.005) }
    }
}
