#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import SystemdNotify
import TestSupport
import Testing

/// sd_notify as systemd receives it: a datagram socket bound where `NOTIFY_SOCKET` points, read back here. The
/// suite is serialized: `NOTIFY_SOCKET` and `WATCHDOG_*` are the process's environment.
@Suite(.serialized) struct SystemdNotifyTests {
    /// A bound AF_UNIX datagram socket standing in for systemd's notify socket.
    final class NotifySocket {
        let fd: Int32
        let path: String

        init() throws {
            path = try TestFolders.make("notify").appendingPathComponent("notify.sock").path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: Array(path.utf8) + [0])
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(rc == 0, "bind \(path): errno \(errno)")
            setenv("NOTIFY_SOCKET", path, 1)
        }

        deinit {
            unsetenv("NOTIFY_SOCKET")
            close(fd)
        }

        /// Every datagram waiting now, without blocking.
        func drain() -> [String] {
            var messages: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n <= 0 { return messages }
                messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
            }
        }
    }

    @Test func readyAndStoppingReachTheNotifySocket() throws {
        let socket = try NotifySocket()
        #expect(SystemdNotifier.ready(status: "listening"))
        #expect(SystemdNotifier.stopping(status: "draining"))
        // This test's own messages: other suites' servers in the test process say READY and STATUS with other texts.
        let mine = ["READY=1\nSTATUS=listening", "STOPPING=1\nSTATUS=draining"]
        #expect(socket.drain().filter { mine.contains($0) } == mine)
    }

    @Test func withoutAServiceManagerNothingIsSent() {
        unsetenv("NOTIFY_SOCKET")
        #expect(!SystemdNotifier.ready(status: "listening"))
        #expect(!SystemdNotifier.watchdog())
    }

    @Test func theWatchdogIntervalIsTheUnitsForThisProcessOnly() {
        setenv("WATCHDOG_USEC", "30000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        #expect(SystemdNotifier.watchdogInterval == .seconds(30))
        // Meant for another process (a parent that exec'd us would have passed it on).
        setenv("WATCHDOG_PID", "\(getpid() + 1)", 1)
        #expect(SystemdNotifier.watchdogInterval == nil)
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
        #expect(SystemdNotifier.watchdogInterval == nil)
    }

    /// Each ping follows a check that returned true: three checks pass, the fourth hangs (a wedged engine) and no
    /// ping arrives while it hangs; released with false it sends none, nor does the fifth (false); the sixth (true)
    /// pings. Checks and pings are recorded by number, and each ping is a real datagram on the notify socket.
    @Test func theWatchdogIsFedOnlyAfterProgress() async throws {
        let socket = try NotifySocket()
        let script = CheckScript()
        let watchdog = SystemdWatchdog(interval: .milliseconds(2), progress: { await script.check() }, ping: {
            script.notePing()
            SystemdNotifier.watchdog()
        })
        let task = Task { await watchdog.run() }
        var started = script.started.makeAsyncIterator()
        while let n = await started.next(), n < 4 {}
        // One task checks, pings, sleeps, checks: the third ping was sent before the fourth check began.
        #expect(script.pings == [1, 2, 3])
        // Only the pings: the socket is the test process's, and other suites' servers in it say READY and STATUS.
        #expect(socket.drain().filter { $0 == "WATCHDOG=1" } == Array(repeating: "WATCHDOG=1", count: 3))
        script.release(false)
        // The seventh check hangs too: by the time it has begun, the sixth's ping is sent and no other.
        while let n = await started.next(), n < 7 {}
        #expect(script.pings == [1, 2, 3, 6])
        #expect(socket.drain().filter { $0 == "WATCHDOG=1" } == ["WATCHDOG=1"])
        task.cancel()
        await task.value
    }
}

/// The watchdog's progress checks, numbered from 1: true, except the fourth and seventh, which wait for `release`
/// (the seventh until cancelled), and the fifth, false. Each check's number is yielded to `started` as it begins.
final class CheckScript: Sendable {
    private let state = Mutex<(calls: Int, pings: [Int])>((0, []))
    let started: AsyncStream<Int>
    private let startedContinuation: AsyncStream<Int>.Continuation
    private let answers: AsyncStream<Bool>
    private let answersContinuation: AsyncStream<Bool>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream.makeStream()
        (answers, answersContinuation) = AsyncStream.makeStream()
    }

    var pings: [Int] { state.withLock { $0.pings } }

    func check() async -> Bool {
        let n = state.withLock { $0.calls += 1; return $0.calls }
        startedContinuation.yield(n)
        switch n {
        case 4, 7:
            for await answer in answers { return answer }
            return false
        case 5: return false
        default: return true
        }
    }

    func notePing() { state.withLock { $0.pings.append($0.calls) } }

    func release(_ answer: Bool) { answersContinuation.yield(answer) }
}
