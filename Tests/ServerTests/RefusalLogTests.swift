import Foundation
import Logging
import NIOCore
@testable import Server
import Synchronization
import Testing
import TestSupport

/// Every request answered with a 4xx is logged at `info` with its method, path (never the query), status and
/// reason, and counted; a flood of bad requests logs at most 20 lines a second and the next line logged says how
/// many were not, so the log and the counter agree.
@Suite(.serialized) struct RefusalLogTests {
    /// The `request refused` lines of the log, as their key=value fields.
    static func refusals(_ log: String) -> [[String: String]] {
        log.split(separator: "\n").filter { $0.contains(" request refused ") }.map { line in
            var fields: [String: String] = [:]
            for part in line.split(separator: " ") where part.contains("=") {
                let kv = part.split(separator: "=", maxSplits: 1)
                fields[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
            return fields
        }
    }

    @Test func everyRefusalIsLoggedOrCountedInTheNextLine() async throws {
        let directory = try TestServer().directory
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("r.sqlite").path, "--listen", "127.0.0.1:0",
                                                  "--sink", "ndjson:" + directory.appendingPathComponent("r.ndjson").path,
                                                  "--log-level", "info"],
                                      directory: directory)
        try await server.waitUntilListening()

        // One of each: an unknown route with a secret in its query, a body of which no record can be read, a
        // request that is not valid JSON.
        #expect(try await server.get("/v1/nowhere?token=s3cret").status.code == 404)
        #expect(try await server.post("/v1/fixes", #"{"device":"a"}"#).status.code == 422)
        #expect(try await server.post("/v1/requests", "{not json").status.code == 400)
        var lines = Self.refusals(server.log)
        #expect(lines.map { $0["status"] ?? "" } == ["404", "422", "400"])
        #expect(lines.map { $0["path"] ?? "" } == ["/v1/nowhere", "/v1/fixes", "/v1/requests"])
        #expect(lines.allSatisfy { $0["method"] != nil && $0["problem"] != nil })
        #expect(!server.log.contains("s3cret"), "the query is never logged")

        // A flood: more than a second's worth of lines, sent as fast as the machine allows.
        for _ in 0..<80 { _ = try await server.get("/v1/nowhere") }
        // One more in a second of its own is logged, and says how many before it were not.
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await server.get("/v1/nowhere").status.code == 404)
        lines = Self.refusals(server.log)
        let notLogged = lines.compactMap { $0["not_logged_before"].flatMap(Int.init) }.reduce(0, +)
        let metrics = try await server.get("/metrics")
        let counted = String(buffer: metrics.body ?? ByteBuffer()).split(separator: "\n")
            .filter { $0.hasPrefix("geotrigger_http_client_errors_total{") }
            .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
        #expect(counted >= 84)
        #expect(Double(lines.count + notLogged) == counted, "\(lines.count) lines + \(notLogged) not logged against \(counted) counted")
        await server.stop()
    }

    /// The limit itself, on a clock the test moves: 20 lines in a second, the rest counted and reported by the
    /// first line of a later second.
    @Test func aSecondLogsAtMostItsShareAndTheNextSaysHowManyWereNot() {
        let clock = Mutex<Int64>(7)
        let log = RefusalLog(perSecond: 20, second: { clock.withLock { $0 } })
        let captured = Captured()
        let logger = Logger(label: "refusals") { _ in captured }
        for k in 0..<25 { log.refused(method: "GET", path: "/v1/x\(k)", status: 404, title: "Not Found", detail: "", logger: logger) }
        #expect(captured.lines.count == 20)
        clock.withLock { $0 = 8 }
        log.refused(method: "POST", path: "/v1/fixes", status: 422, title: "Unprocessable", detail: "no record", logger: logger)
        #expect(captured.lines.count == 21)
        #expect(captured.lines.last?["not_logged_before"] == "5")
        #expect(captured.lines.last?["path"] == "/v1/fixes")
        log.refused(method: "GET", path: "/v1/y", status: 404, title: "Not Found", detail: "", logger: logger)
        #expect(captured.lines.last?["not_logged_before"] == nil, "reported once")
    }
}

/// A log handler that keeps each message's metadata as text.
final class Captured: LogHandler, @unchecked Sendable {
    private let store = Mutex<[[String: String]]>([])
    var lines: [[String: String]] { store.withLock { $0 } }
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.withLock { $0.append((event.metadata ?? [:]).mapValues { "\($0)" }) }
    }
}
