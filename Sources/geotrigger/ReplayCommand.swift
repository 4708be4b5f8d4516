import ArgumentParser
import CPrefetch
import Foundation
import MallocHugePages
import Ingest
import ReplayReport
import SystemErrors
import TriggerEngine

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replays recorded traces against a region set and prints the notifications that would have fired.",
        discussion: """
            REGIONS is a JSON array of notification requests (SPEC §1) or a GeoJSON FeatureCollection whose features \
            carry the request fields in their properties, as geojson.io and QGIS export them: a feature with no \
            identifier is named by --id-property, else its id, else its geometry and name; GeoJSON features repeat \
            and get a readable title and body unless they say otherwise (docs/semantics.md). Each TRACE is GPX, NMEA 0183, CSV, NDJSON, OwnTracks or \
            Traccar JSON, detected from its content (override with --format); `-` reads standard input. A TRACE that is \
            a service's journal directory (`serve --journal`) replays the fixes it accepted, in the order it accepted \
            them: last week's real stream against edited regions, compared with --expect. A trace that \
            cannot be opened or whose format cannot be told is reported and skipped, and the others are replayed. Time is \
            event time, per device: each device's own later fixes settle its dwell deadlines, so files grouped by \
            device, several files, or records interleaved in any order give the same notifications as one file \
            sorted by time, and a replay gives the same output every run. Deadlines a device left pending when its \
            fixes stop fire at the end of the input, up to the newest timestamp seen. Notifications go to standard \
            output as NDJSON (with --speed, each line as it fires); a summary goes to standard error.

            \(TraceInputOptions.help)

            \(ExitStatus.help(replay: true))
            """)

    @Argument(help: "The region file: JSON requests or a GeoJSON FeatureCollection.") var regions: String
    @Option(help: "GeoJSON regions: the feature property that names a feature without properties.identifier (e.g. QGIS's fid). Default: the feature's id, else an identifier derived from its geometry and name.")
    var idProperty: String?
    @Argument(help: "Trace files or journal directories, replayed in the order given; `-` reads standard input.") var traces: [String]
    @OptionGroup var input: TraceInputOptions
    @Option(name: .shortAndLong, help: "Write notifications here instead of standard output.") var output: String?
    @Option(help: "Compare the notifications with this golden NDJSON file; exit 1 with a diff when they differ.")
    var expect: String?
    @Option(help: "Record the notifications as a golden NDJSON file.") var writeExpect: String?
    @Flag(help: "Stop at the first bad record or unusable file (exit 2) instead of skipping, counting and reporting it.")
    var strict = false
    @Option(help: "Replay in scaled real time: 1 = as recorded, 10 = ten times faster (default: as fast as possible).")
    var speed: Double?
    @Flag(help: "Buffer every fix and replay them in timestamp order across all traces. Not needed for correct results (time is per device); it only puts the output in time order across devices.")
    var sortByTime = false
    @Option(help: "Fire a silent device's deadline once the watermark (the second-newest device's newest timestamp) is this many seconds past it, instead of at the end of the input. Only for input whose devices are interleaved within this bound (default: none).")
    var allowedLateness: Double?
    @Option(help: "Reject fixes more than this many seconds ahead of both the watermark and their device's newest fix as future; 0 turns the check off.")
    var maxFuture: Double = TriggerEngine.Configuration.defaultEventFuture
    @Option(help: "Most rejected records to list individually on standard error.") var showErrors = 20
    @Option(help: "Write a self-contained HTML report: a map of the tracks (a colour per device, start and end marks, decimated per zoom level), the regions by name and the transitions, over bundled country outlines; an explain panel per transition (the fix, its accuracy, the dwell, fixes refused near it); a per-device timeline; tables of notifications and of refused fixes.")
    var report: String?
    @Option(help: ArgumentHelp("Print, on standard error, a line per input of DEVICE saying what the engine decided for each request near it and why (inside, outside or uncertain with the distance to the edge and the accuracy band; dwell, minimumInterval, repeats, scope, refusals). DEVICE:REQUEST explains that request only.", valueName: "device[:request]"))
    var explain: String?
    @Option(help: ArgumentHelp("Write every refused record here, one JSON object per line: unreadable records with file, line and field; fixes the engine refused (late, duplicate, future, invalid) with file, fix ordinal, device and timestamp.", valueName: "file"))
    var rejections: String?
    @Option(help: ArgumentHelp("With --report: draw the map over this tile server's tiles (https://…/{z}/{x}/{y}.png; {s} becomes a) instead of the bundled outlines. The page then loads tiles from it when opened; without this option it loads nothing.", valueName: "URL-TEMPLATE"))
    var tiles: String?
    @Option(help: ArgumentHelp("With --tiles: the attribution the tile server asks for, shown on the map.", valueName: "TEXT"))
    var tilesAttribution: String?

    func validate() throws {
        if let speed, !(speed > 0) { throw ValidationError("--speed must be > 0") }
        if let allowedLateness, !(allowedLateness >= 0 && allowedLateness < 1e10) {
            throw ValidationError("--allowed-lateness must be a number of seconds ≥ 0")
        }
        if !(maxFuture >= 0 && maxFuture < 1e12) { throw ValidationError("--max-future must be a number of seconds ≥ 0") }
        if let tiles {
            if report == nil { throw ValidationError("--tiles is for the map of --report; give --report FILE too") }
            if let problem = Self.tileTemplateProblem(tiles) { throw ValidationError("--tiles \(tiles): \(problem)") }
        }
        if tilesAttribution != nil, tiles == nil { throw ValidationError("--tiles-attribution names the tile server of --tiles; give --tiles too") }
    }

    /// Region files from this size on are large enough for huge pages to pay (MallocHugePages: measured at a million
    /// regions, within the noise at 100k), and the restart they need costs little beside the loading.
    static let hugePageRegionBytes = 64 << 20

    /// Region files from this size on grow the heap by tens of megabytes while they load.
    static let paddedHeapRegionBytes = 4 << 20

    func run() throws {
        let regionBytes = (try? FileManager.default.attributesOfItem(atPath: regions)[.size] as? NSNumber)?.intValue ?? 0
        if regionBytes >= Self.hugePageRegionBytes {
            MallocHugePages.restartWithThemIfUseful()
        }
        if regionBytes >= Self.paddedHeapRegionBytes {
            // The replay runs on a worker thread, whose malloc arena grows in new heaps and then a few pages at a
            // time, an mprotect each: with 64 MiB of padding a heap is made usable whole, in one call.
            geotrigger_pad_heap_growth(64 << 20)
        }
        // What the end of the replay writes or reads is checked first: a typo must not cost the whole replay.
        for (option, path) in [("-o", output), ("--report", report), ("--write-expect", writeExpect), ("--rejections", rejections)] {
            if let path, path != "-", let problem = FileBytes.cannotWrite(path) { throw ExitStatus.fail("\(option) \(path): \(problem)") }
        }
        var golden: [UInt8]?
        if let expect {
            do { golden = try FileBytes.read(expect) } catch { throw ExitStatus.fail("--expect \(expect): \(error)") }
        }
        let requests: [NotificationRequest]
        let groups: [String: [String]]
        do {
            let loaded = try RegionFileLoader.load(regions, geoJSON: GeoJSONOptions(idProperty: idProperty))
            requests = loaded.requests
            groups = loaded.groups
            if let note = RegionFileLoader.defaultsNote(regions, loaded.defaultsApplied) {
                FileHandle.standardError.write(note.data(using: .utf8)!)
            }
        } catch {
            throw ExitStatus.fail("\(error)")
        }
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = allowedLateness
        configuration.maximumFuture = maxFuture == 0 ? nil : maxFuture
        let explained = explain.map { Self.explainTarget($0, requests: requests) }
        configuration.explainDevice = explained?.device
        let engine = TriggerEngine(configuration: configuration)
        // The process ends when the replay does: the engine and the requests are left for the exit to reclaim, not
        // freed object by object at the end of this scope (with many regions, a tenth of loading them).
        _ = Unmanaged.passRetained(engine)
        UnsafeMutablePointer<[NotificationRequest]>.allocate(capacity: 1).initialize(to: requests)
        let rejectionLog: RejectionLog?
        do { rejectionLog = try rejections.map { try RejectionLog(path: $0) } } catch {
            throw ExitStatus.fail("--rejections \(error)")
        }
        /// The explained device's new inputs, a line each.
        func printExplanations() {
            guard let explained, let e = engine.drainExplanation(request: explained.request) else { return }
            let text = e.lines.map { "explain: \($0)\n" }.joined()
            if !text.isEmpty { FileHandle.standardError.write(text.data(using: .utf8)!) }
        }
        for (name, members) in groups { engine.setGroup(name, devices: members) }
        try engine.add(contentsOf: requests)
        let keep = expect != nil || writeExpect != nil
        // Paced output is watched as it happens (often through a pipe): each notification is written at once.
        let sink: OutputSink
        do { sink = try OutputSink(path: output, keepLines: keep, flushesEachLine: speed != nil) } catch {
            throw ExitStatus.fail("-o \(error)")
        }
        var summary = ReplaySummary(regionCount: requests.count)
        summary.rejectionLog = rejections
        // Otherwise notifications are rendered and written on a thread of their own, handed over once per batch.
        let writer = speed == nil ? NotificationWriterThread(sink: sink) : nil
        writer?.start()
        var pending: [FiredNotification] = []
        var pacedTally = NotificationTally()
        func emit(_ n: FiredNotification) {
            if writer != nil { pending.append(n) } else { pacedTally.record(n); sink.write(n) }
        }
        func handOver() {
            guard let writer, !pending.isEmpty else { return }
            let count = pending.count
            writer.submit(pending)
            pending = []
            pending.reserveCapacity(count)
        }
        /// Everything written and flushed, and counted in the summary.
        func closeOutput() {
            handOver()
            if let writer { summary.tally = writer.finish() } else { summary.tally = pacedTally; sink.flush() }
        }
        var pacer = speed.map { RealTimePacer(speed: $0) }
        var failed: IngestError?
        var buffered: [LocationFix] = []
        let clock = ContinuousClock()
        let started = clock.now

        var htmlReport = report.map { _ in ReplayReport(requests: requests) }
        // Options read once: an ArgumentParser property read per fix costs a generic metadata lookup.
        let strict = strict, sortByTime = sortByTime, showErrors = showErrors
        /// Where each fix came from, for `--rejections`: its file and ordinal among the file's fixes.
        var fixOrdinal = 0
        var sources: [(path: String, ordinal: Int)] = []
        func refused(_ fix: LocationFix, _ reason: FixRejection, path: String, ordinal: Int) {
            summary.reject(reason)
            rejectionLog?.write(fix, reason, source: path, ordinal: ordinal)
        }
        func evaluate(_ fix: LocationFix, path: String, ordinal: Int) {
            pacer?.wait(until: fix.timestamp)
            let outcome = engine.process(fix) { n in
                emit(n)
                htmlReport?.record(n)
            }
            if case .rejected(let reason) = outcome {
                refused(fix, reason, path: path, ordinal: ordinal)
                htmlReport?.record(fix, refused: reason)
            } else {
                htmlReport?.record(fix)
            }
        }
        // The common case (no pacing or sorting) takes a loop with nothing but evaluation and output, and the report
        // beside it when asked for.
        let plain = pacer == nil && !sortByTime

        // Decoding runs on its own thread; evaluation and output stay here, in file order.
        let pipeline = TracePipeline(paths: traces) { [factory = input.factory, format = input.traceFormat, device = input.device] path in
            try factory.open(path, format: format, device: device)
        }
        pipeline.start()
        var progress: TerminalProgress?
        var currentPath = ""
        while let batch = pipeline.next() {
            defer {
                handOver()
                // After the batch's fixes: a file that failed part-way gave what it could.
                if !batch.warnings.isEmpty || batch.failure != nil { progress?.finish() }
                for warning in batch.warnings { summary.warn(warning) }
                // With --strict the failure is said once, below, as what stopped the replay.
                if let failure = batch.failure, !strict { summary.skip(batch.path, failure) }
            }
            if let failure = batch.failure, strict {
                pipeline.cancel()
                closeOutput()
                throw ExitStatus.fail("\(failure) (--strict: stopped at the first unusable file)")
            }
            if batch.path != currentPath {
                progress?.finish()
                progress = TerminalProgress(total: batch.size, label: "replay \(batch.path):")
                currentPath = batch.path
                fixOrdinal = 0
            }
            defer { printExplanations() }
            if plain, batch.errors.isEmpty {
                summary.fixesRead += batch.fixes.count
                let first = fixOrdinal
                fixOrdinal += batch.fixes.count
                batch.fixes.withUnsafeBufferPointer { fixes in
                    // `plain` means unpaced, so the writer thread is there.
                    if htmlReport == nil {
                        engine.process(batch: fixes, emit: { pending.append($0) }, outcome: { k, outcome in
                            if case .rejected(let reason) = outcome { refused(fixes[k], reason, path: batch.path, ordinal: first + k + 1) }
                        })
                    } else {
                        // Each fix goes to the report with its outcome, each notification as it fires: nothing is
                        // asked of the engine for the report.
                        engine.process(batch: fixes, emit: { n in
                            pending.append(n)
                            htmlReport!.record(n)
                        }, outcome: { k, outcome in
                            if case .rejected(let reason) = outcome {
                                refused(fixes[k], reason, path: batch.path, ordinal: first + k + 1)
                                htmlReport!.record(fixes[k], refused: reason)
                            } else {
                                htmlReport!.record(fixes[k])
                            }
                        })
                    }
                }
                progress?.update(bytes: batch.bytesRead, records: summary.fixesRead)
                continue
            }
            var nextError = 0
            for k in batch.fixes.indices {
                while nextError < batch.errors.count, batch.errors[nextError].position <= k {
                    let e = batch.errors[nextError].error
                    nextError += 1
                    summary.ingestError(e, listUpTo: strict ? 0 : showErrors)
                    rejectionLog?.write(e)
                    if strict { failed = e; break }
                }
                if failed != nil { break }
                summary.fixesRead += 1
                fixOrdinal += 1
                if sortByTime {
                    buffered.append(batch.fixes[k])
                    if rejectionLog != nil { sources.append((batch.path, fixOrdinal)) }
                } else {
                    evaluate(batch.fixes[k], path: batch.path, ordinal: fixOrdinal)
                }
            }
            if failed == nil {
                while nextError < batch.errors.count {
                    let e = batch.errors[nextError].error
                    nextError += 1
                    summary.ingestError(e, listUpTo: strict ? 0 : showErrors)
                    rejectionLog?.write(e)
                    if strict { failed = e; break }
                }
            }
            progress?.update(bytes: batch.bytesRead, records: summary.fixesRead)
            if let failed {
                pipeline.cancel()
                closeOutput()
                throw ExitStatus.fail("\(failed) (--strict: stopped at the first bad record)")
            }
        }
        progress?.finish()
        if sortByTime {
            // Stable: equal timestamps keep their input order (SPEC §2: arrival order).
            let order = buffered.indices.sorted { (buffered[$0].timestamp, $0) < (buffered[$1].timestamp, $1) }
            for (k, i) in order.enumerated() {
                let source = i < sources.count ? sources[i] : (path: "", ordinal: 0)
                evaluate(buffered[i], path: source.path, ordinal: source.ordinal)
                // In batches as the unsorted path does, so the notifications of a long trace are not all held.
                if k % 4096 == 4095 {
                    handOver()
                    printExplanations()
                }
            }
        }
        // The end of the input: every device is silent from here, so the deadlines they left pending up to the
        // newest timestamp seen fire; later ones stay pending, as they would in live operation at that moment.
        engine.finish { n in
            emit(n)
            htmlReport?.record(n)
        }
        printExplanations()
        if let explained, engine.explain(device: explained.device) == nil {
            FileHandle.standardError.write("explain: device \(explained.device) does not appear in the traces\n".data(using: .utf8)!)
        }
        rejectionLog?.close()
        closeOutput()
        summary.elapsed = (clock.now - started).seconds
        summary.engine = engine.statistics
        summary.print()
        if summary.fixesRead == 0 {
            throw ExitStatus.fail("no fix could be read from \(traces.joined(separator: ", "))")
        }

        if let report, let htmlReport {
            let reportStarted = clock.now
            do {
                let page = htmlReport.html(title: "GeoTrigger replay: \(traces.joined(separator: ", "))",
                                           tiles: tiles.map { ReplayReport.Tiles(template: $0, attribution: tilesAttribution) })
                try Data(page).write(to: URL(fileURLWithPath: report), options: .atomic)
                let seconds = (clock.now - reportStarted).seconds
                FileHandle.standardError.write("report: \(report) (\(page.count) bytes, written in \(String(format: "%.2f", seconds)) s)\n".data(using: .utf8)!)
            } catch {
                throw ExitStatus.fail("--report \(report): \(Self.reason(error))")
            }
        }
        let lines = sink.lines ?? []
        if let writeExpect {
            let text = lines.map { $0 + "\n" }.joined()
            do {
                try text.write(toFile: writeExpect, atomically: true, encoding: .utf8)
            } catch {
                throw ExitStatus.fail("--write-expect \(writeExpect): \(Self.reason(error))")
            }
        }
        if let expect, let golden {
            let result = GoldenComparison.compare(actual: lines, golden: golden, goldenPath: expect)
            if !result.matches {
                FileHandle.standardError.write(result.report.data(using: .utf8)!)
                throw ExitStatus.expectationNotMet.code
            }
            FileHandle.standardError.write("expectation \(expect): \(counted(lines.count, "notification")) match\n".data(using: .utf8)!)
        }
        if !summary.skippedFiles.isEmpty { throw ExitStatus.filesSkipped.code }
    }
}

extension ReplayCommand {
    /// What is wrong with a `--tiles` template, or nil: an http(s) URL with {z}, {x} and {y}.
    static func tileTemplateProblem(_ template: String) -> String? {
        guard template.hasPrefix("https://") || template.hasPrefix("http://") else {
            return "a tile URL template starts with https:// or http://, e.g. https://tile.example.org/{z}/{x}/{y}.png"
        }
        let missing = ["{z}", "{x}", "{y}"].filter { !template.contains($0) }
        if !missing.isEmpty { return "the template has no \(missing.joined(separator: ", ")); tiles are addressed by {z}/{x}/{y}" }
        if template.contains(where: { $0 == "\"" || $0 == "<" || $0 == ">" || $0 == " " || $0.isNewline }) {
            return "a URL cannot contain spaces, quotes or angle brackets"
        }
        return nil
    }

    /// The system's reason for a failed write (Foundation's errors carry it as their underlying POSIX error), not
    /// `NSCocoaErrorDomain Code=4`.
    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return SystemError.text(Int32(underlying.code))
        }
        if ns.domain == NSPOSIXErrorDomain { return SystemError.text(Int32(ns.code)) }
        return ns.localizedDescription
    }
}

/// Sleeps so that event time advances at `speed` times real time.
struct RealTimePacer {
    let speed: Double
    var origin: (event: Timestamp, wall: ContinuousClock.Instant)?

    init(speed: Double) { self.speed = speed }

    mutating func wait(until t: Timestamp) {
        guard let origin else {
            self.origin = (t, ContinuousClock.now)
            return
        }
        let due = origin.wall + .microseconds(Int64(Double((t - origin.event).microseconds) / speed))
        let now = ContinuousClock.now
        if due > now { Thread.sleep(forTimeInterval: (due - now).seconds) }
    }
}

extension ReplayCommand {
    /// `DEVICE[:REQUEST]`: the part after the last colon is a request only when one of the loaded requests has that
    /// identifier (device ids may hold colons).
    static func explainTarget(_ text: String, requests: [NotificationRequest]) -> (device: String, request: String?) {
        if let colon = text.lastIndex(of: ":") {
            let request = String(text[text.index(after: colon)...])
            if requests.contains(where: { $0.identifier == request }) { return (String(text[..<colon]), request) }
        }
        return (text, nil)
    }
}
