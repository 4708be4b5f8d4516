import Foundation
import HummingbirdTesting
import JSON
import Testing
import TestSupport
import TriggerEngine

/// `--input gpsd:HOST:PORT`: a real gpsd from Debian, fed a real receiver's log by gpsfake, reached over its JSON
/// protocol; the fixes the service journals are gpsd's TPVs; when gpsd goes away the input reconnects and goes on.
@Suite(.serialized, .enabled(if: Gpsfake.path != nil && SharedData.isAvailable,
                              "skipped: needs gpsfake (Tools/setup.sh --tests) and ../shared/data (gpsd)"))
struct GpsdInputTests {
    /// gpsd's expected TPVs for a log: (time, latitude, longitude) of each report with a fix.
    static func expected(_ log: String) throws -> [(time: String, latitude: Double, longitude: Double)] {
        try String(contentsOf: SharedData.url("gpsd/\(log).log.chk"), encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix("{"), let o = try? JSONParser.parse(Array(line.utf8)), o["class"]?.stringValue == "TPV",
                (o["mode"]?.doubleValue ?? 0) >= 2, let t = o["time"]?.stringValue, let lat = o["lat"]?.doubleValue, let lon = o["lon"]?.doubleValue
            else { return nil }
            return (t, lat, lon)
        }
    }

    /// The device's newest fix time once it reaches `time` (polling the API), or what it is when `eventually`
    /// gives up.
    static func waitForLastFix(_ server: ServeProcess, _ time: String) async throws -> String? {
        var last: String?
        _ = try await eventually(every: .milliseconds(100)) {
            let r = try await server.get("/v1/devices/rx")
            if r.status == .ok, let body = r.body, let o = try? JSONParser.parse(Array(body.readableBytesView)) {
                last = o["lastFix"]?.stringValue
            }
            return last.map { $0 >= time.replacingOccurrences(of: ".000Z", with: "Z") } == true
        }
        return last
    }

    @Test func gpsdsFixesAreJournaledAndTheInputReconnects() async throws {
        let directory = try TestServer().directory
        let port = try LoopbackPort.free()
        let first = "st-teseo-liv4f", second = "ericsson-gru04-02-70sec"
        let expectedFirst = try Self.expected(first), expectedSecond = try Self.expected(second)
        #expect(expectedFirst.count > 100 && expectedSecond.count > 100)

        var gpsfake = try Gpsfake(log: SharedData.url("gpsd/\(first).log").path, port: port, directory: directory)
        let database = directory.appendingPathComponent("g.sqlite").path
        // The two recordings are from different days, one device: past --max-future's default (10 minutes of event
        // time, docs/semantics.md "Time"), so the bound is off here.
        let server = try ServeProcess(arguments: ["--database", database, "--listen", "127.0.0.1:0", "--clock", "event", "--max-future", "0",
                                                  "--sink", "ndjson:\(directory.appendingPathComponent("out.ndjson").path)",
                                                  "--input", "gpsd:127.0.0.1:\(port)?device=rx"], directory: directory)
        try await server.waitUntilListening()
        let reached = try await Self.waitForLastFix(server, expectedFirst.last!.time)
        #expect(reached != nil, "no fix reached the service: \(server.log.suffix(2000)) gpsfake: \(gpsfake.log.suffix(1000))")

        // gpsd goes away (gpsfake stops it); the input reconnects, with backoff, to the next one on the port.
        await gpsfake.stop()
        gpsfake = try Gpsfake(log: SharedData.url("gpsd/\(second).log").path, port: port, directory: directory)
        let again = try await Self.waitForLastFix(server, expectedSecond.last!.time)
        #expect(again.map { $0 >= expectedSecond.last!.time.replacingOccurrences(of: ".000Z", with: "Z") } == true,
                "after the reconnection: \(again ?? "nothing"); \(server.log.suffix(2000))")
        // One line per attempt, with the reason in words and the wait (the first gpsd was connected, then stopped).
        #expect(server.log.contains("gpsd at 127.0.0.1:\(port): connection ended; retrying in 0.5 s"), "\(server.log.suffix(2000))")
        #expect(!server.log.contains("SingleConnectionFailure"))
        let metrics = try await server.get("/metrics")
        #expect(metrics.body.map { String(buffer: $0) }?.contains(#"geotrigger_input_reconnects_total{input="gpsd:127.0.0.1:\#(port)"}"#) == true)
        await gpsfake.stop()
        await server.stop()

        // What the service accepted, in order: gpsd's own TPVs for both logs, to the last digit.
        let text = try BuiltBinary.output(["journal", "export", database + ".journal"]).stdout
        let journaled = text.split(separator: "\n").compactMap { line -> (time: String, latitude: Double, longitude: Double)? in
            guard let o = try? JSONParser.parse(Array(line.utf8)), o["device"]?.stringValue == "rx", let t = o["timestamp"]?.stringValue,
                let lat = o["latitude"]?.doubleValue, let lon = o["longitude"]?.doubleValue else { return nil }
            return (t, lat, lon)
        }
        // Each journaled fix is one of gpsd's TPVs, from both logs. (The journal holds every fix received, so a log
        // gpsfake repeats before it is stopped is there again, rejected as late by the engine.)
        let reported = Set((expectedFirst + expectedSecond).map { "\($0.latitude),\($0.longitude)" })
        #expect(journaled.allSatisfy { reported.contains("\($0.latitude),\($0.longitude)") })
        #expect(journaled.allSatisfy { Timestamp(rfc3339: $0.time) != nil })
        #expect(journaled.filter { $0.time.hasPrefix("2025-03-21") }.count >= 5 && journaled.filter { $0.time.hasPrefix("2026-02-12") }.count >= 5,
                "\(journaled.count) fixes journaled")
    }
}

/// gpsfake (gpsd's test harness, from gpsd-clients) replaying a log into a gpsd it starts on `port`.
struct Gpsfake {
    static var path: String? {
        let candidates = [ProcessInfo.processInfo.environment["GEOTRIGGER_GPSFAKE"], "/var/cache/geotrigger/gpsd-clients/usr/bin/gpsfake",
                          "/usr/bin/gpsfake"].compactMap { $0 }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd") }
    }

    let process = Process()
    let logURL: URL
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    init(log: String, port: Int, directory: URL) throws {
        self.port = port
        logURL = directory.appendingPathComponent("gpsfake-\(port)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.path!)
        // -q quiet, -P gpsd's port, -c seconds between sentences (faster, gpsd loses sync and reports less); the log
        // repeats until gpsfake is stopped.
        process.arguments = ["-q", "-P", String(port), "-c", "0.02", log]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "/usr/sbin:/usr/bin:/bin"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
    }

    let port: Int

    /// Stops gpsd (gpsfake's child, which outlives an interrupted gpsfake) and gpsfake; the port is free after.
    func stop() async {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("gpsd") == true, let s = arguments.firstIndex(of: "-S"), arguments.dropFirst(s + 1).first == String(port) {
                kill(pid, SIGKILL)
            }
        }
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        _ = await eventually(timeout: .seconds(5), every: .milliseconds(100)) { !process.isRunning }  // a grace period
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
