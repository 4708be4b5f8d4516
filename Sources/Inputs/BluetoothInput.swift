import Beacons
import BlueZDBus
import Foundation
import Host
import Logging
import Metrics
import ServiceLifecycle
import TriggerEngine

/// `serve --bluetooth ADAPTER`: the scanner's beacon sightings (through bluetoothd or raw HCI, `--backend`),
/// evaluated as they are heard. The adapter is opened when this is made, so a missing adapter, bluetoothd or
/// capability fails the start, not the running server. The scanner is not Sendable: after `init` only the scan
/// thread touches it.
public final class BluetoothInput: Service, @unchecked Sendable {
    let adapter: String
    let observer: String
    let host: EngineHost
    let logger: Logger
    let backend: BluetoothBackend
    private let scanner: any LiveBeaconScanner

    /// The adapter opened and scanning, before the server exists: `serve` opens it before anything is created on
    /// disk, so a missing adapter, bluetoothd or capability stops the start with nothing left behind.
    public struct Opened: @unchecked Sendable {
        let adapter: String
        let scanner: any LiveBeaconScanner
        let backend: BluetoothBackend
    }

    public static func open(adapter: String, backend: BluetoothBackend, logger: Logger) throws -> Opened {
        let opened = try backend.open(adapter: adapter, logger: logger, metricsDimensions: [("adapter", adapter)])
        return Opened(adapter: adapter, scanner: opened.scanner, backend: opened.backend)
    }

    public init(_ opened: Opened, host: EngineHost, logger: Logger) {
        self.adapter = opened.adapter
        self.observer = "\(ProcessInfo.processInfo.hostName)/\(opened.adapter)"
        self.host = host
        self.logger = logger
        scanner = opened.scanner
        self.backend = opened.backend
    }

    public func run() async throws {
        let stop = HCIScanner.StopFlag()
        // Batches wait here while the engine is busy; past 64 the oldest are dropped rather than blocking the radio.
        // An empty batch is a listening tick: the scanner heard nothing more up to its time.
        let (batches, continuation) = AsyncStream.makeStream(of: (sightings: [BeaconSighting], listening: Timestamp).self,
                                                             bufferingPolicy: .bufferingNewest(64))
        // Handed to the scan thread, its only user from here on.
        nonisolated(unsafe) let scanner = scanner
        let observer = observer, logger = logger, adapter = adapter
        let dropped = Counter(label: "geotrigger_bluetooth_dropped_sightings_total", dimensions: [("adapter", adapter)])
        let thread = Thread {
            var pipeline = BeaconScanPipeline(observer: observer,
                                              metrics: BeaconScanMetrics(dimensions: [("adapter", adapter)]))
            var lastTick = Timestamp.distantPast
            var malformedSeen = 0
            while !stop.isStopped {
                var batch: [BeaconSighting] = []
                do {
                    try scanner.poll(timeoutMilliseconds: 200, pipeline: &pipeline) { batch.append($0) }
                } catch {
                    logger.error("bluetooth scanning failed", metadata: ["adapter": "\(adapter)", "error": "\(error)"])
                    break
                }
                // The scanner parses its own events: its malformed ones join the pipeline's counters here.
                if scanner.malformedEvents > malformedSeen {
                    pipeline.metrics.malformedEvents.increment(by: scanner.malformedEvents - malformedSeen)
                    malformedSeen = scanner.malformedEvents
                }
                let now = Timestamp.wallClock()
                // Sightings as heard; with none, a listening tick at most once a second (each may commit).
                guard !batch.isEmpty || now.microseconds - lastTick.microseconds >= 1_000_000 else { continue }
                lastTick = now
                if case .dropped(let oldest) = continuation.yield((batch, now)) {
                    // Counted and logged, never silent: the engine fell this far behind the radio.
                    dropped.increment(by: oldest.sightings.count)
                    logger.warning("bluetooth sightings dropped: the engine is behind", metadata: [
                        "adapter": "\(adapter)", "sightings": "\(oldest.sightings.count)"])
                }
            }
            try? scanner.stop()
            try? scanner.close()
            continuation.finish()
        }
        thread.name = "geotrigger-bluetooth"
        thread.start()
        do {
            try await host.observerStarted(device: observer, at: .wallClock())
        } catch {
            logger.warning("cannot record that the scanner listens; its first sightings set the initial state",
                           metadata: ["input": "bluetooth:\(adapter)", "reason": "\(error)"])
        }
        logger.notice("input opened", metadata: ["input": "bluetooth:\(adapter)", "observer": "\(observer)",
                                                 "backend": "\(backend)"])
        let host = host
        await withGracefulShutdownHandler {
            var count = 0
            for await batch in batches {
                let numbered = batch.sightings.map { s in
                    count += 1
                    return (line: count, sighting: s)
                }
                do {
                    if !numbered.isEmpty { _ = try await host.process(sightings: numbered) }
                    try await host.observerListening(device: observer, at: batch.listening)
                } catch {
                    logger.warning("input stopped", metadata: ["input": "bluetooth:\(adapter)", "reason": "\(error)"])
                    stop.stop()
                    break
                }
            }
        } onGracefulShutdown: {
            stop.stop()
        }
        logger.notice("input stopped", metadata: ["input": "bluetooth:\(adapter)"])
    }
}
