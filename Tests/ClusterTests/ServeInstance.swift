import Foundation
import TestSupport

/// A `geotrigger serve` process of a scale-out deployment, on a port the kernel said was free, its log in a file.
final class ServeInstance: @unchecked Sendable {
    let name: String
    let port: Int
    let arguments: [String]
    let logFile: URL
    private var process: Process?

    init(name: String, journal: String, directory: URL, extra: [String] = []) throws {
        self.name = name
        port = try LoopbackPort.free()
        logFile = directory.appendingPathComponent("\(name).log")
        arguments = ["serve", "--journal", journal, "--instance", name, "--listen", "127.0.0.1:\(port)", "--log-level", "notice"] + extra
    }

    var isRunning: Bool { process?.isRunning ?? false }

    func start() throws {
        let p = Process()
        p.executableURL = BuiltBinary.geotrigger
        p.arguments = arguments
        if !FileManager.default.fileExists(atPath: logFile.path) { _ = FileManager.default.createFile(atPath: logFile.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: logFile)
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        process = p
    }

    /// Waits for `/readyz` to answer 200.
    func waitReady(timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let r = try? LoopbackHTTP.exchange(port: port, method: "GET", path: "/readyz"), r.status == 200 { return }
            guard isRunning else { throw ClusterTestFailure(description: "\(name) exited: \(log.suffix(2000))") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw ClusterTestFailure(description: "\(name) not ready within \(timeout): \(log.suffix(2000))")
    }

    func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    func terminate() {
        guard let p = process else { return }
        p.terminate()
        p.waitUntilExit()
        process = nil
    }

    /// `/v1/cluster`'s `owned` list, or nil when the instance does not answer.
    func owned() -> [Int]? {
        guard let r = try? LoopbackHTTP.exchange(port: port, method: "GET", path: "/v1/cluster"), r.status == 200,
              let start = r.body.range(of: "\"owned\":["), let end = r.body[start.upperBound...].firstIndex(of: "]") else { return nil }
        return r.body[start.upperBound..<end].split(separator: ",").compactMap { Int($0) }
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    deinit { if let p = process { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
}
