#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// Output watched while it is produced: paced replay into a pipe, progress of `convert` on a terminal.
@Suite struct LiveOutputCLITests {
    @Test func pacedReplayWritesEachNotificationAsItFires() throws {
        // Outside the depot, inside one second later (the entry), and a last fix an hour after the first: the
        // entry must reach the pipe while the replay waits for that fix, however slow the machine. Buffered output
        // would come only at the end; the test then fails when its watchdog ends the wait (a hang's bound).
        let trace = """
            {"device":"t","timestamp":"2026-11-20T07:00:00Z","latitude":52.55,"longitude":13.40}
            {"device":"t","timestamp":"2026-11-20T07:00:01Z","latitude":52.54,"longitude":13.40}
            {"device":"t","timestamp":"2026-11-20T08:00:00Z","latitude":52.5401,"longitude":13.40}

            """
        let path = TestFolders.path("gt-paced", suffix: ".ndjson").path
        try trace.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = Process()
        p.executableURL = CLIRunner.executable
        p.arguments = ["replay", "Data/demo-requests.json", path, "--speed", "1"]
        p.currentDirectoryURL = CLIRunner.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let watchdog = Thread {
            _ = eventuallyBlocking(every: .milliseconds(200)) { !p.isRunning }
            if p.isRunning { p.terminate() }
        }
        watchdog.start()
        var received = Data()
        while !received.contains(10) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        let stillReplaying = p.isRunning
        p.terminate()
        p.waitUntilExit()
        #expect(String(decoding: received, as: UTF8.self).contains(#""event":"entry""#), "\(String(decoding: received, as: UTF8.self))")
        #expect(stillReplaying, "the notification came only when the replay ended")
    }

    @Test func convertShowsProgressOnATerminal() throws {
        let (master, terminalPath) = try #require(Self.openPseudoTerminal())
        defer { close(master) }
        let terminal = try #require(FileHandle(forWritingAtPath: terminalPath))
        let p = Process()
        p.executableURL = CLIRunner.executable
        p.arguments = ["convert", "-"]
        p.currentDirectoryURL = CLIRunner.packageRoot
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        p.standardError = terminal
        try p.run()
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        var seen = [UInt8]()
        func drain() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { return }
                seen += buffer[0..<n]
            }
        }
        // Rows drip in, so the conversion is still running when the progress line is due (200 ms after it starts,
        // however long the process takes to start); the rest follows once the line is seen, or after 15 s.
        let rows = (0..<400).map { "bus-\($0 % 4),\(1_700_000_000 + $0),53.4,-2.9\n" }
        input.fileHandleForWriting.write("device,time,lat,lon\n".data(using: .utf8)!)
        var sent = 0
        let deadline = ContinuousClock.now + .seconds(15)
        while sent < 300, ContinuousClock.now < deadline, !String(decoding: seen, as: UTF8.self).contains("\rconvert") {
            input.fileHandleForWriting.write(rows[sent].data(using: .utf8)!)
            sent += 1
            Thread.sleep(forTimeInterval: 0.05)
            drain()
        }
        input.fileHandleForWriting.write(rows[sent...].joined().data(using: .utf8)!)
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        try terminal.close()
        #expect(p.terminationStatus == 0)
        drain()
        let text = String(decoding: seen, as: UTF8.self)
        #expect(text.contains("\rconvert -: "), "\(text.debugDescription)")
        #expect(text.contains("converted 400 fixes"))
    }

    /// A pseudo-terminal: the controlling side's descriptor and the terminal's path. The libc calls are looked up at
    /// run time because the Glibc module does not export them.
    static func openPseudoTerminal() -> (Int32, String)? {
        typealias Open = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let libc = dlopen(nil, RTLD_NOW), let open = dlsym(libc, "posix_openpt"), let grant = dlsym(libc, "grantpt"),
              let unlock = dlsym(libc, "unlockpt"), let name = dlsym(libc, "ptsname") else { return nil }
        let master = unsafeBitCast(open, to: Open.self)(O_RDWR | O_NOCTTY)
        guard master >= 0 else { return nil }
        guard unsafeBitCast(grant, to: Open.self)(master) == 0, unsafeBitCast(unlock, to: Open.self)(master) == 0,
              let path = unsafeBitCast(name, to: Name.self)(master) else {
            close(master)
            return nil
        }
        return (master, String(cString: path))
    }
}
