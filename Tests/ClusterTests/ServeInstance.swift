import Foundation
import TestSupport

/// A `geotrigger serve` instance of a scale-out deployment (a `ServeProcess`, started again after a kill), on a
/// port the kernel said was free, its log in one file across restarts.
final class ServeInstance: @unchecked Sendable {
    let name: String
    let port: Int
    let arguments: [String]
    let directory: URL
    let logFile: URL
    private var process: ServeProcess?

    /// - Parameter logLevel: the instance's `--log-level` (else `GEOTRIGGER_TEST_LOG_LEVEL`, else `notice`).
    init(name: String, journal: String, directory: URL, extra: [String] = [], logLevel: String? = nil) throws {
        self.name = name
        self.directory = directory
        port = try LoopbackPort.free()
        logFile = directory.appendingPathComponent("\(name).log")
        arguments = ["--journal", journal, "--instance", name, "--listen", "127.0.0.1:\(port)", "--log-level", logLevel ?? ProcessInfo.processInfo.environment["GEOTRIGGER_TEST_LOG_LEVEL"] ?? "notice"] + extra
    }

    var isRunning: Bool { process?.process.isRunning ?? false }

    /// Starts (or restarts) the instance on its port; every start appends to the one log.
    func start() throws {
        process = try ServeProcess(arguments: arguments, directory: directory, log: logFile)
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
        process?.kill9()
        process = nil
    }

    func terminate() {
        guard let p = process?.process else { return }
        p.terminate()
        p.waitUntilEnded()
        process = nil
    }

    /// `/v1/cluster`'s `owned` list, or nil when the instance does not answer.
    func owned() -> [Int]? {
        guard let r = try? LoopbackHTTP.exchange(port: port, method: "GET", path: "/v1/cluster"), r.status == 200,
              let start = r.body.range(of: "\"owned\":["), let end = r.body[start.upperBound...].firstIndex(of: "]") else { return nil }
        return r.body[start.upperBound..<end].split(separator: ",").compactMap { Int($0) }
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
}
