import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore

/// The built `geotrigger serve` executable as a child process, its log in a file: the one launcher of the tests that
/// run `serve` (crashes, restarts, inputs, TLS, a scale-out deployment's instances).
public final class ServeProcess {
    public let process = Process()
    public let stderrURL: URL
    public private(set) var port = 0

    public static var executable: URL { BuiltBinary.geotrigger }

    /// - Parameter arguments: more `serve` arguments (further sinks, delivery options).
    public convenience init(database: String, sink: String, directory: URL, arguments: [String] = []) throws {
        try self.init(arguments: ["--database", database, "--listen", "127.0.0.1:0", "--sink", "ndjson:\(sink)"] + arguments,
                      directory: directory)
    }

    /// `geotrigger serve ARGUMENTS` with no GEOTRIGGER_* variables but `environment`; `stdin` feeds its input.
    /// With `shell`, that `/bin/sh -c` command instead (it must `exec` the server, so signals reach it). The log
    /// goes to a new file in `directory`, or is appended to `log` (a restarted instance keeps one log).
    public init(arguments: [String], directory: URL, environment extra: [String: String] = [:], stdin: Pipe? = nil, shell: String? = nil,
                log: URL? = nil) throws {
        stderrURL = log ?? directory.appendingPathComponent("serve-\(UUID().uuidString).log")
        if !FileManager.default.fileExists(atPath: stderrURL.path) { _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil) }
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell]
        } else {
            process.executableURL = Self.executable
            process.arguments = ["serve"] + arguments
        }
        let handle = try FileHandle(forWritingTo: stderrURL)
        handle.seekToEndOfFile()
        process.standardError = handle
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = stdin ?? FileHandle.nullDevice
        // Not under systemd's journal, whatever runs the tests: the log lines keep their time and level.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GEOTRIGGER_") && $0.key != "JOURNAL_STREAM" }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        try process.run()
    }

    public var log: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Waits for the HTTP "listening" log line and reads the port from it.
    public func waitUntilListening() async throws {
        port = try await waitForPort(message: "listening")
    }

    /// The first log line whose message is `message` (`TIME LEVEL MESSAGE key=value…`), or nil.
    public func logLine(message: String) -> Substring? {
        log.split(separator: "\n").first { line in
            let parts = line.split(separator: " ", maxSplits: 2)
            return parts.count == 3 && (parts[2] == message || parts[2].hasPrefix(message + " "))
        }
    }

    /// Waits for a log line whose message is `message` and reads its `port=` pair.
    public func waitForPort(message: String) async throws -> Int {
        // Two minutes of tries: beside the whole suite on two cores a start (a recovery, a replay) has taken over
        // the 20 s this once allowed. A process that exits stops the wait at once.
        for _ in 0..<2400 {
            if let line = logLine(message: message), let range = line.range(of: " port=")
            {
                let port = Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
                if port > 0 { return port }
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // A server that never said where it listens must not outlive the test.
        if process.isRunning { kill9() }
        throw ServeProcessError(log: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
    }

    public func get(_ path: String) async throws -> TestClient.Response {
        try await Self.send(.get, path, "", port: port)
    }

    public func post(_ path: String, _ body: String) async throws -> TestClient.Response {
        try await Self.send(.post, path, body, port: port)
    }

    public func put(_ path: String, _ body: String) async throws -> TestClient.Response {
        try await Self.send(.put, path, body, port: port)
    }

    /// One request on a fresh connection (static: a request in flight while the process is killed needs no
    /// reference to it).
    public static func send(_ method: HTTPRequest.Method, _ path: String, _ body: String, port: Int) async throws -> TestClient.Response {
        // A connection the server closed before answering (under the whole suite's load, a serve process starved
        // past its header timeout closes it, as it must against slow clients) is tried again, as any HTTP client
        // would: a request that was taken is acknowledged again (ingest is idempotent). A dead server refuses the
        // connection, which is not retried.
        for _ in 1..<3 {
            do {
                return try await sendOnce(method, path, body, port: port)
            } catch ChannelError.ioOnClosedChannel {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        return try await sendOnce(method, path, body, port: port)
    }

    private static func sendOnce(_ method: HTTPRequest.Method, _ path: String, _ body: String, port: Int) async throws -> TestClient.Response {
        // A generous read timeout: with the whole suite's servers on two cores an answer took over TestClient's
        // default 15 s, and the closed channel failed correct runs. A server that never answers still fails.
        let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(120)))
        client.connect()
        do {
            let response = try await client.execute(.init(path, method: method, body: ByteBuffer(string: body)))
            try? await client.shutdown()
            return response
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Waits up to `seconds` for the process to exit by itself; false if it is still running.
    public func waitForExit(seconds: Double) async throws -> Bool {
        await eventually(timeout: .seconds(seconds), every: .milliseconds(50)) { !process.isRunning }
    }

    /// Whatever way a test ends, the child does not outlive it.
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilEnded()
        }
    }

    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilEnded()
    }

    /// SIGTERM and the orderly shutdown's end, awaited without blocking a thread of the concurrency pool.
    public func stop() async {
        process.terminate()
        await process.exited()
    }
}

public struct ServeProcessError: Error, CustomStringConvertible {
    public var log: String
    public var description: String { "geotrigger serve did not start:\n\(log)" }
}
