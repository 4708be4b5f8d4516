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
}
