import JSON
import ArgumentParser
import Delivery
import Foundation
import Host
import Hummingbird
import EngineLog
import Journal
import Logging
import ServiceLifecycle
import Storage
import Synchronization
import TriggerEngine

/// The journal to a local webhook or MQTT broker: notifications written as journal records to real segment files
/// (fsync'd), handed to the outbox by the host's feeder, delivered by the real dispatcher and sink (cursors and
/// dead letters in a real SQLite file) to a Hummingbird receiver on loopback in the same process, or to a
/// mosquitto started for the run with a QoS 1 subscriber in the same process (offline during the backlog run unless
/// `--live-receiver`: its persistent session queues at the broker and it drains and checks everything afterwards).
struct DeliveryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delivery",
        abstract: "Measures notifications per second delivered to a local webhook or mosquitto and the outbox's added latency.")

    enum SinkKind: String, ExpressibleByArgument, CaseIterable { case webhook, mqtt }

    @Option(help: "webhook: a receiver in this process; mqtt: a mosquitto started for the run (topic geotrigger/{device}/{event}).")
    var sink: SinkKind = .webhook
    @Option(help: "Notifications in the throughput run (written to the outbox first, then drained).") var notifications = 20_000
    @Option(help: "Devices the notifications belong to.") var devices = 100
    @Option(help: "Webhook batch sizes to measure (1: one object per POST). MQTT delivers as serve does: MQTTSink.batchSize.")
    var batches: [Int] = [1, 50]
    @Option(help: "Webhook concurrency (devices in flight). MQTT delivers as serve does: MQTTSink.concurrency.") var concurrency = 8
    @Option(help: "Latency run: notifications per second, committed 10 at a time.") var rate = 1000
    @Option(help: "Latency run: seconds.") var seconds = 10
    @Flag(help: "mqtt: keep the subscriber connected during the backlog run (by default it is offline then, its persistent session queued at the broker, and drains afterwards, so the timed run measures the sink and the broker, not a subscriber on the same two cores).")
    var liveReceiver = false

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let arrivals = Arrivals()
        let target = try await DeliveryTarget.start(sink, arrivals: arrivals, batches: batches, concurrency: concurrency,
                                                    liveReceiver: liveReceiver, logger: logger)
        let missing: Int
        do {
            missing = try await measure(target, arrivals, logger)
        } catch {
            await target.stop()
            throw error
        }
        await target.stop()
        if missing > 0 { throw ValidationError("\(missing) notification(s) never reached the \(sink.rawValue) receiver") }
    }

    /// Prints one backlog and one steady row per batch size; returns how many deliveryIds never arrived.
    func measure(_ target: DeliveryTarget, _ arrivals: Arrivals, _ logger: Logger) async throws -> Int {
        let template = Self.template()
        var missingTotal = 0
        print("sink\tcase\tbatch\tconcurrency\tnotifications\tseconds\tnotifications_per_s\tp50_ms\tp99_ms\tmissing")
        for batch in target.batches {
            // Throughput: a backlog (the scheduler was down), drained until every cursor is stored past it.
            arrivals.reset()
            await target.pause?()
            var backlog = try Bench(sink: try target.makeSink(batch), logger: logger)
            var sequence = 0
            try await backlog.journal(template, count: notifications, devices: devices, from: &sequence)
            let start = ContinuousClock.now
            let backlogDispatcher = backlog.dispatcher
            let task = Task { try await backlogDispatcher.run() }
            while backlog.outbox.extent.entries > 0 { try await Task.sleep(for: .milliseconds(5)) }
            let elapsed = (ContinuousClock.now - start).seconds
            task.cancel()
            _ = try? await task.value
            await target.close(backlog.sink)
            try await target.resume?()
            // A broker acknowledges before its subscribers have everything: wait for them before counting.
            let missing = await arrivals.missing(count: notifications)
            missingTotal += missing
            print([sink.rawValue, "backlog", "\(batch)", "\(backlog.sink.concurrency)", "\(notifications)", String(format: "%.2f", elapsed),
                   String(format: "%.0f", Double(notifications) / elapsed), "-", "-", "\(missing)"].joined(separator: "\t"))

            // Latency: a steady stream, each record's notifications timed from before its journal write (so the
            // fsync is included) to their arrival.
            arrivals.reset()
            var live = try Bench(sink: try target.makeSink(batch), logger: logger)
            let liveFeeder = live.feeder, liveDispatcher = live.dispatcher
            let feederTask = Task { try await liveFeeder.run() }
            let liveTask = Task { try await liveDispatcher.run() }
            var committed: [String: Int64] = [:]
            var liveSequence = 0
            let perRecord = 10, interval = Duration.seconds(1) * (Double(perRecord) / Double(rate))
            let records = rate * seconds / perRecord
            var next = ContinuousClock.now
            for _ in 0..<records {
                let first = liveSequence
                let at = Timestamp.wallClock().microseconds
                try live.write(template, count: perRecord, devices: devices, from: &liveSequence)
                for k in first..<liveSequence { committed["bench/\(k)"] = at }
                next += interval
                try await Task.sleep(until: next)
            }
            let total = liveSequence
            let liveMissing = await arrivals.missing(count: total)
            missingTotal += liveMissing
            feederTask.cancel()
            liveTask.cancel()
            _ = try? await liveTask.value
            await target.close(live.sink)
            live.log.close()
            backlog.log.close()
            let received = arrivals.arrivals
            var latencies = committed.compactMap { id, at in received[id].map { Double($0 - at) / 1000 } }.sorted()
            if latencies.isEmpty { latencies = [0] }
            func pct(_ p: Double) -> String { String(format: "%.2f", latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) }
            print([sink.rawValue, "steady", "\(batch)", "\(live.sink.concurrency)", "\(total)", "\(seconds)", "\(rate)", pct(0.50), pct(0.99),
                   "\(liveMissing)"].joined(separator: "\t"))
        }
        return missingTotal
    }

    /// One run's journal, feeder, outbox and dispatcher, in a new temporary folder.
    struct Bench {
        let sink: ConfiguredSink
        let log: FileHostLog
        let outbox: JournalOutbox
        let feeder: OutboxFeeder
        let dispatcher: OutboxDispatcher
        private var writer = ByteWriter(capacity: 1 << 16)

        init(sink: ConfiguredSink, logger: Logger) throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let store = try SQLiteStore(path: dir.appendingPathComponent("g.sqlite").path, logger: logger)
            self.sink = sink
            log = try FileHostLog(directory: dir.appendingPathComponent("journal").path, logger: logger)
            outbox = JournalOutbox(sinks: [sink.sink.name], cursors: [:])
            let signal = OutboxSignal()
            feeder = OutboxFeeder(outbox: outbox, log: log, signal: signal, logger: logger)
            var configuration = DeliveryConfiguration()
            configuration.retry = RetryPolicy(initial: .milliseconds(10), maximum: .milliseconds(100))
            dispatcher = OutboxDispatcher(store: store, outbox: outbox, sinks: [sink], signal: signal, configuration: configuration,
                                          logger: logger)
        }

        /// Writes `count` notifications (deliveryIds `bench/N`, devices round-robin) as one journal record and
        /// queues them for the outbox (the feeder moves them once the fsync covers them).
        mutating func write(_ template: FiredNotification, count: Int, devices: Int, from sequence: inout Int) throws {
            var notifications: [RecordedNotification] = []
            for k in sequence..<(sequence + count) {
                var f = template
                f.deliveryId = "bench/\(k)"
                f.device = "device-\(k % devices)"
                notifications.append(RecordedNotification(f))
            }
            let record = HostRecord(input: .clock(template.firedAt), notifications: notifications).journalRecord(using: &writer)
            let range = try log.write([record])
            feeder.enqueue(position: range.lowerBound, notifications)
            sequence += count
        }

        /// A backlog: `count` notifications in records of at most 1,000, durable and in the outbox on return.
        mutating func journal(_ template: FiredNotification, count: Int, devices: Int, from sequence: inout Int) async throws {
            var left = count
            while left > 0 {
                let n = min(left, 1000)
                try write(template, count: n, devices: devices, from: &sequence)
                left -= n
            }
            await feeder.feedPending()
        }
    }

    /// One real entry notification from the engine.
    static func template() -> FiredNotification {
        let json = """
            {"identifier": "bench", "content": {"title": "{device} {event}"},
             "trigger": {"type": "location", "repeats": true,
                         "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
            """
        let engine = TriggerEngine()
        // The literal is valid by construction.
        try! engine.add(try! RequestDecoder().decodeRequest(try! JSONParser.parse(json)))
        var out: [FiredNotification] = []
        for (s, inside) in [(0, false), (1, true)] {
            let fix = LocationFix(device: "d", timestamp: Timestamp(microseconds: Int64(1_800_000_000 + s) * 1_000_000),
                                  latitude: inside ? 52.5219 : 52.53, longitude: 13.4132)
            engine.process(fix) { out.append($0) }
        }
        return out[0]
    }
}

/// When each deliveryId first arrived at the receiving end (wall-clock µs): at-least-once delivery may repeat one.
final class Arrivals: Sendable {
    private let state = Mutex<[String: Int64]>([:])

    var count: Int { state.withLock { $0.count } }
    var arrivals: [String: Int64] { state.withLock { $0 } }
    func reset() { state.withLock { $0.removeAll(keepingCapacity: true) } }

    func note(_ ids: [String], at: Int64) {
        state.withLock { s in for id in ids where s[id] == nil { s[id] = at } }
    }

    /// Waits until `bench/0` … `bench/count-1` all arrived, or nothing new came for 10 s; returns how many did not.
    func missing(count expected: Int) async -> Int {
        var seen = count, quiet = ContinuousClock.now
        while seen < expected && ContinuousClock.now - quiet < .seconds(10) {
            try? await Task.sleep(for: .milliseconds(5))
            let now = count
            if now != seen { (seen, quiet) = (now, .now) }
        }
        let received = arrivals
        return (0..<expected).count { received["bench/\($0)"] == nil }
    }

    /// The `"deliveryId":"…"` values in a body (one object or an array), without a full parse: a byte scan, so the
    /// receiver (in this process, on the same two cores) takes as little as it can from what is measured.
    static func deliveryIds(_ body: [UInt8]) -> [String] {
        let key = Array(#""deliveryId":""#.utf8)
        var out: [String] = []
        body.withUnsafeBufferPointer { b in
            var i = 0
            let n = b.count
            while i + key.count <= n {
                guard b[i] == key[0], b[i + 1] == key[1], b[i + 2] == key[2],
                      key.indices.allSatisfy({ b[i + $0] == key[$0] }) else { i += 1; continue }
                let start = i + key.count
                var end = start
                while end < n, b[end] != UInt8(ascii: "\"") { end += 1 }
                out.append(String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self))
                i = end
            }
        }
        return out
    }
}

/// The local webhook: answers 204 and notes each deliveryId's arrival.
final class Receiver: Sendable {
    private let arrivals: Arrivals
    private let running = Mutex<(ServiceGroup, Task<Void, any Error>)?>(nil)

    init(_ arrivals: Arrivals) {
        self.arrivals = arrivals
    }

    func start(logger: Logger) async throws -> Int {
        let router = Router()
        router.post("hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            let at = Timestamp.wallClock().microseconds
            self.arrivals.note(Arrivals.deliveryIds(Array(body.readableBytesView)), at: at)
            return Response(status: .noContent)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        running.withLock { $0 = (group, Task { try await group.run() }) }
        for await port in stream { return port }
        return 0
    }

    func stop() async {
        guard let (group, task) = running.withLock({ $0 }) else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
