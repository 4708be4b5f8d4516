import JSON
import ArgumentParser
import Beacons
import BlueZDBus
import Dispatch
import Foundation
import Logging
import TriggerEngine

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scans for iBeacon, AltBeacon and Eddystone advertisements with a Bluetooth adapter (through bluetoothd over D-Bus, or raw HCI) or replays a btsnoop capture.",
        discussion: """
            Without --regions, prints one NDJSON sighting per beacon advertisement. With --regions, runs them through \
            the trigger engine and prints the notifications instead (beacon entries, and exits after each region's \
            exitTimeout without a sighting; a beacon first heard in the first 2 s of listening was there already, \
            which notifies only with initialTrigger). Live scanning goes through bluetoothd (--backend dbus, the default \
            when org.bluez is on the system bus: the adapter stays shared with other programs; the bus policy must \
            allow the user, root or group bluetooth on Debian) or a raw HCI socket (--backend hci: needs CAP_NET_RAW, \
            root or setcap cap_net_raw+ep, and an adapter no one else scans with), and stops on SIGINT/SIGTERM or \
            after --duration.
            """)

    @Option(help: "Adapter name or index, e.g. hci0. With --btsnoop it only names the observer, and only when the capture does not name its adapters (btmon captures do).")
    var adapter = "hci0"
    @Option(help: "Replay this btsnoop capture (btmon -w, or Android/hcidump H4) instead of scanning.") var btsnoop: String?
    @Option(help: "Only this controller index of a multi-controller (monitor) capture.") var controller: UInt16?
    @Option(help: "Region file: notification requests with beacon regions (or any regions).") var regions: String?
    @Option(help: "The observer's device id in sightings (default: HOST/ADAPTER; with --btsnoop, HOST/ and the adapter the capture says heard each sighting, e.g. vm/hci1).")
    var observer: String?
    @Option(help: "How to reach the adapter: dbus (through bluetoothd, beside its other clients), hci (raw HCI socket), or auto: dbus when bluetoothd is on the system bus, else hci.")
    var backend: BluetoothBackend = .auto
    @Flag(help: "Active scanning (send scan requests) instead of passive; raw HCI only (bluetoothd's discovery is always active).") var active = false
    @Flag(help: "Bring the adapter up if it is down: HCIDEVUP with --backend hci (like `hciconfig hciN up`; needs CAP_NET_ADMIN), Powered=true through bluetoothd.") var up = false
    @Option(help: "Stop live scanning after this many seconds (default: until SIGINT/SIGTERM).") var duration: Double?
    @Option(name: .shortAndLong, help: "Write here instead of standard output.") var output: String?
    @Option(help: "With --regions, also write every sighting as NDJSON to this file (what the engine was given).")
    var sightings: String?

    func validate() throws {
        if sightings != nil, regions == nil { throw ValidationError("--sightings needs --regions (without it, sightings are the output)") }
    }

    func run() throws {
        let host = ProcessInfo.processInfo.hostName
        let observerName = observer ?? "\(host)/\(adapter)"
        var pipeline = BeaconScanPipeline(observer: observerName)
        let sink = try OutputSink(path: output)
        let sightingSink = try sightings.map { try OutputSink(path: $0) }
        var writer = JSONWriter(capacity: 256)
        var engine: TriggerEngine?
        if let regions {
            do {
                let requests = try RegionFileLoader.load(regions).requests
                let e = TriggerEngine(configuration: .init(clock: btsnoop == nil ? .external : .eventTime))
                try e.add(contentsOf: requests)
                engine = e
            } catch {
                FileHandle.standardError.write("geotrigger: \(error)\n".data(using: .utf8)!)
                throw ExitCode(2)
            }
        }
        var sightings = 0
        func handle(_ s: BeaconSighting) {
            sightings += 1
            if let engine {
                if let sightingSink {
                    writer.bytes.removeAll(keepingCapacity: true)
                    s.writeJSON(to: &writer)
                    sightingSink.writeLine(writer.bytes)
                }
                engine.process(s) { sink.write($0) }
            } else {
                writer.bytes.removeAll(keepingCapacity: true)
                s.writeJSON(to: &writer)
                sink.writeLine(writer.bytes)
            }
        }

        if let btsnoop {
            let reader: BTSnoopReader
            do {
                reader = try BTSnoopReader(path: btsnoop)
            } catch {
                FileHandle.standardError.write("geotrigger: \(btsnoop): \(error)\n".data(using: .utf8)!)
                throw ExitCode(2)
            }
            // Each adapter in the capture is its own observer, listening from its first sighting.
            var started: Set<String> = []
            // Consecutive sightings mostly share their observer: comparing with the last one spares a hash per sighting.
            var lastObserver = ""
            var naming: (@Sendable (String) -> String)?
            if observer == nil { naming = { [host] adapter in "\(host)/\(adapter)" } }
            // Decoding and proximity on the replay's thread, output (and the engine) on this one.
            let replay = BTSnoopReplayThread(reader: reader, pipeline: pipeline, controllerIndex: controller,
                                             observerForAdapter: naming)
            replay.start()
            while true {
                switch replay.next() {
                case .sightings(let batch):
                    for s in batch {
                        if s.device != lastObserver {
                            lastObserver = s.device
                            if started.insert(s.device).inserted { engine?.observerStarted(device: s.device, at: s.timestamp) }
                        }
                        handle(s)
                    }
                case .end(let statistics, let error):
                    if let error {
                        sink.flush()
                        FileHandle.standardError.write("geotrigger: \(btsnoop): \(error)\n".data(using: .utf8)!)
                        throw ExitCode(2)
                    }
                    // The end of the capture: the observer is silent from here on, so what its last sighting left
                    // pending up to then fires.
                    engine?.finish { sink.write($0) }
                    sink.flush()
                    sightingSink?.flush()
                    report(statistics, sightings: sightings)
                    return
                }
            }
        }

        // Standard output is the NDJSON: the scanner's log lines (warnings about what bluetoothd sent) go to stderr.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .notice
            return handler
        }
        let opened: (scanner: any LiveBeaconScanner, backend: BluetoothBackend)
        do {
            opened = try backend.open(adapter: adapter, active: active, bringUp: up, logger: Logger(label: "geotrigger.scan"))
        } catch {
            FileHandle.standardError.write("geotrigger: \(error)\n".data(using: .utf8)!)
            throw ExitCode(2)
        }
        let stop = HCIScanner.StopFlag()
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { stop.stop() }
            s.resume()
            return s
        }
        if let duration {
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) { stop.stop() }
        }
        let startedAt = Timestamp.wallClock()
        engine?.observerStarted(device: observerName, at: startedAt)
        let scanner = opened.scanner
        let mode = opened.backend == .dbus ? "through bluetoothd" : active ? "raw HCI, active" : "raw HCI, passive"
        FileHandle.standardError.write("scanning on \(adapter) (\(mode)); stop with Ctrl-C\n".data(using: .utf8)!)
        do {
            // Poll in short steps and move the engine's clock after each, heard or not, so beacon exits fire on
            // time even when nothing more is heard.
            while !stop.isStopped {
                try scanner.poll(timeoutMilliseconds: 200, pipeline: &pipeline) { handle($0) }
                // Listening and hearing nothing is the observer's own news: its beacon exits fire on time.
                let tick = Timestamp.wallClock()
                engine?.observerListening(device: observerName, at: tick) { sink.write($0) }
                engine?.advance(to: tick) { sink.write($0) }
                sink.flush()
                sightingSink?.flush()
            }
        } catch {
            FileHandle.standardError.write("geotrigger: \(error)\n".data(using: .utf8)!)
        }
        engine?.advance(to: Timestamp.wallClock()) { sink.write($0) }
        _ = sources
        try? scanner.stop()
        try? scanner.close()
        sink.flush()
        sightingSink?.flush()
        report(pipeline.statistics, sightings: sightings)
    }

    func report(_ s: BeaconScanPipeline.Statistics, sightings: Int) {
        var line = "advertising reports \(s.advertisements), beacons \(s.beacons), malformed events \(s.malformedEvents)"
        // Quirks only when there were any: the usual capture has none.
        for (n, what) in [(s.oversizedLegacyReports, "legacy reports over 31 bytes"),
                          (s.reassembledAdvertisements, "reassembled from fragments"),
                          (s.truncatedAdvertisements, "truncated"), (s.abandonedAdvertisements, "abandoned unfinished")]
        where n > 0 {
            line += ", \(what) \(n)"
        }
        FileHandle.standardError.write((line + "\n").data(using: .utf8)!)
    }
}
