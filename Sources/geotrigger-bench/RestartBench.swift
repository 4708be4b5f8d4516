import JSON
import ArgumentParser
import Foundation
import Host
import Journal
import Logging
import Storage
import TriggerEngine

/// Restart time and memory of the service's host (issue 16): a state of `devices` devices and `regions` circles is
/// built through the real host (journal files, fsyncs), checkpointed, then `--after` more fixes are journaled past
/// the checkpoint; a fresh process (this command again, with `--restore`) restores from the files and prints the
/// time from nothing to a restored host, its parts, and the process's resident memory.
struct RestartBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Measures the host's restart (newest checkpoint + journal replay) and resident memory.")

    @Option(help: "Devices.") var devices = 1_000_000
    @Option(help: "Circles (sparse: ~2 % of points in a region).") var regions = 100_000
    @Option(help: "Fixes journaled after the checkpoint (the journal a restart replays, unless --checkpoint-inputs).") var after = 1_000_000
    @Option(help: "While those are journaled, run serve's checkpoint scheduler with this input bound (serve's --checkpoint-inputs): the restart then replays only what came after the newest checkpoint it took.")
    var checkpointInputs: Int?
    @Option(help: "Fixes per journal record (an HTTP batch).") var batch = 2_000
    @Option(help: "Keep the state here instead of a temporary folder.") var directory: String?
    @Option(help: "Only restore from this folder (used by the measuring run, in a fresh process).") var restore: String?
    @Option(help: "Random seed.") var seed: UInt64 = 42

    static var configurationForHost: TriggerEngine.Configuration {
        var c = TriggerEngine.Configuration(clock: .eventTime)
        c.keepsLastPosition = true
        c.tracksOccupants = true
        return c
    }

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        if let restore {
            let before = ProcessMemory.residentBytes()
            let clock = ContinuousClock()
            let start = clock.now
            let log = try FileHostLog(directory: restore + "/g.journal", logger: logger)
            let host = try EngineHost(store: try SQLiteStore(path: restore + "/g.sqlite", logger: logger), log: log,
                                      configuration: Self.configurationForHost, feedBacklogLimit: .max, logger: logger)
            let seconds = (clock.now - start) / .seconds(1)
            let r = host.restored
            print("restart\t\(String(format: "%.2f", seconds))\trestore_seconds\t\(String(format: "%.2f", r.seconds))\tdevices\t\(r.devices)"
                  + "\trequests\t\(r.requests)\treplayed_records\t\(r.replayed)\trss_mib\t\((ProcessMemory.residentBytes() - 0) >> 20)"
                  + "\trss_before_mib\t\(before >> 20)")
            log.close()
            return
        }
        let folder = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-restart-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: folder) } }

        let total = devices + after
        let w = Workload(shape: .circles, density: .sparse, regions: regions, devices: devices, fixes: total, seed: seed)
        let log = try FileHostLog(directory: folder + "/g.journal", logger: logger)
        let host = try EngineHost(store: try SQLiteStore(path: folder + "/g.sqlite", logger: logger), log: log,
                                  configuration: Self.configurationForHost, feedBacklogLimit: .max, logger: logger)
        _ = try await host.add(try JSONParser.parse(QueryBench.requestsJSON(w)))
        let names = (0..<devices).map { "device-\($0)" }
        let base = Timestamp(year: 2026, month: 11, day: 20)
        let clock = ContinuousClock()
        var started = clock.now
        var records: [(line: Int, fix: LocationFix)] = []
        records.reserveCapacity(batch)
        func feed(_ range: Range<Int>) async throws {
            for k in range {
                records.append((k, LocationFix(device: names[k % devices], timestamp: Timestamp(microseconds: base.microseconds + Int64(k) * 1000),
                                               latitude: w.fixLatitudes[k], longitude: w.fixLongitudes[k], horizontalAccuracy: 5)))
                if records.count == batch || k == range.upperBound - 1 {
                    _ = try await host.process(fixes: records)
                    records.removeAll(keepingCapacity: true)
                    if k % 200_000 < batch { _ = await host.feeder.feedPending() }
                }
            }
            _ = await host.feeder.feedPending()
        }
        try await feed(0..<devices)
        let built = (clock.now - started) / .seconds(1)
        started = clock.now
        _ = try await host.checkpoint()
        let checkpointSeconds = (clock.now - started) / .seconds(1)
        started = clock.now
        // As serve runs it: in the background, every 60 s or after the input bound, while input goes on.
        let scheduler = checkpointInputs.map {
            CheckpointScheduler(host: host, interval: .seconds(60), recordLimit: .max, inputLimit: UInt64($0), logger: logger)
        }
        let scheduling = scheduler.map { s in Task { try await s.run() } }
        try await feed(devices..<total)
        scheduling?.cancel()
        _ = await scheduling?.result
        let afterSeconds = (clock.now - started) / .seconds(1)
        let pendingInputs = await host.inputsSinceCheckpoint
        log.close()
        let bytes = { (sub: String) -> Int in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/g.journal")) ?? []).filter { $0.hasSuffix(sub) }
                .reduce(0) { $0 + (((try? FileManager.default.attributesOfItem(atPath: folder + "/g.journal/" + $1))?[.size] as? Int) ?? 0) }
        }
        print("# \(regions) circles (sparse), \(devices) devices: state built in \(String(format: "%.1f", built)) s "
              + "(\(String(format: "%.0f", Double(devices) / built)) fixes/s through the host), checkpoint in "
              + "\(String(format: "%.2f", checkpointSeconds)) s; \(after) fixes journaled after it in \(String(format: "%.1f", afterSeconds)) s "
              + "(\(String(format: "%.0f", Double(after) / afterSeconds)) fixes/s"
              + (checkpointInputs == nil ? "" : ", checkpoints every \(checkpointInputs!) inputs; \(pendingInputs) after the newest") + "); journal \(bytes(".journal") >> 20) MiB, "
              + "checkpoints \(bytes(".checkpoint") >> 20) MiB; RSS of the building process \(ProcessMemory.residentBytes() >> 20) MiB")
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for round in 1...2 {
            let p = Process()
            p.executableURL = me
            p.arguments = ["restart", "--restore", folder]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            p.waitUntilExit()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            print("round\t\(round)\t" + text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
