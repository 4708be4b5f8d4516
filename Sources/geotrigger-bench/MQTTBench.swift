import ArgumentParser
import Endpoints
import Foundation
import MQTT

/// QoS 1 publishing of SPEC §4 notifications (~500 bytes) to a local mosquitto, as the MQTT sink would do it:
/// topic `geotrigger/{device}/{event}`, batches awaited until every PUBACK is in. Also measures one-at-a-time
/// publishes for the publish→PUBACK latency. A QoS 1 subscriber receives everything and the count is checked.
struct MQTTBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt",
        abstract: "Measures QoS 1 notifications/s to mosquitto and publish→PUBACK latency (starts its own broker).")

    @Option(help: "Notifications published in batches.") var messages = 100_000
    @Option(help: "Notifications per batch (the outbox dispatcher reads 256 at a time).") var batch = 256
    @Option(help: "Notifications published one at a time, for the latency.") var single = 5_000
    @Option(help: "Devices.") var devices = 1_000
    @Option(help: "Messages in flight before PUBACKs (MQTT receive maximum).") var inflight = 100
    @Option(help: "Existing broker HOST:PORT instead of starting mosquitto.") var broker: String?
    @Flag(help: "Do not run a subscriber.") var noSubscriber = false

    func run() async throws {
        var local: LocalMosquitto?
        defer { local?.stop() }
        let host: String, port: Int
        if let broker {
            guard let hp = HostPort(parsing: broker, ports: 1...65535) else { throw ValidationError("--broker must be HOST:PORT") }
            (host, port) = (hp.host, hp.port)
        } else {
            let started = try LocalMosquitto.start()
            local = started
            port = started.port
            host = "127.0.0.1"
        }
        var options = MQTTClient.Options(host: host, port: port, publishTimeout: .seconds(60), maximumInflight: inflight)
        let publisher = try MQTTClient(options)
        try await publisher.waitUntilConnected()
        options.maximumInflight = 100
        let subscriber = noSubscriber ? nil : try MQTTClient(options)
        let counter = Task { [subscriber] in
            var n = 0
            guard let subscriber else { return 0 }
            for await _ in subscriber.messages { n += 1 }
            return n
        }
        try await subscriber?.subscribe("geotrigger/#")

        let template = try MQTTTopicTemplate("geotrigger/{device}/{event}")
        let names = (0..<devices).map { "vehicle-\($0)" }
        func message(_ k: Int) -> MQTTMessage {
            let device = names[k % names.count], event = k % 2 == 0 ? "entry" : "exit"
            let topic = template.render(MQTTTopicFields(device: device, event: event, identifier: "depot-north-arrivals", regionId: "depot-north"))
            return MQTTMessage(topic: topic, payload: Self.notification(device: device, event: event, sequence: k))
        }
        let all = (0..<messages).map(message)
        let size = all.map(\.payload.count).reduce(0, +) / max(1, all.count)

        // Batches: the sink's way.
        var batchLatencies: [Duration] = []
        let clock = ContinuousClock()
        let start = clock.now
        var offset = 0
        while offset < all.count {
            let end = min(offset + batch, all.count)
            let t = clock.now
            try await publisher.publish(Array(all[offset..<end]))
            batchLatencies.append(clock.now - t)
            offset = end
        }
        let elapsed = clock.now - start

        // One at a time: publish→PUBACK round trips.
        var latencies: [Duration] = []
        for k in 0..<single {
            let m = message(messages + k)
            let t = clock.now
            try await publisher.publish(topic: m.topic, payload: m.payload)
            latencies.append(clock.now - t)
        }
        let singleElapsed = latencies.reduce(.zero, +)

        try await Task.sleep(for: .milliseconds(500))
        await subscriber?.close()
        let received = await counter.value
        await publisher.close()

        func ms(_ d: Duration) -> String { String(format: "%.3f", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1e3) }
        func percentile(_ xs: [Duration], _ p: Double) -> Duration {
            let s = xs.sorted()
            return s.isEmpty ? .zero : s[min(s.count - 1, Int((Double(s.count) * p).rounded(.down)))]
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("case\tmessages\tbytes\tmsgs_per_s\tp50_ms\tp99_ms\treceived")
        print(["batch-\(batch)", "\(messages)", "\(size)", String(format: "%.0f", Double(messages) / seconds),
               ms(percentile(batchLatencies, 0.5)), ms(percentile(batchLatencies, 0.99)), noSubscriber ? "-" : "\(received)"]
            .joined(separator: "\t"))
        let singleSeconds = Double(singleElapsed.components.seconds) + Double(singleElapsed.components.attoseconds) / 1e18
        print(["single", "\(single)", "\(size)", String(format: "%.0f", Double(single) / singleSeconds),
               ms(percentile(latencies, 0.5)), ms(percentile(latencies, 0.99)), "-"].joined(separator: "\t"))
        if !noSubscriber && received < messages + single {
            throw ValidationError("the subscriber received \(received) of \(messages + single) notifications")
        }
    }

    static func notification(device: String, event: String, sequence: Int) -> [UInt8] {
        Array("""
            {"identifier":"depot-north-arrivals","deliveryId":"depot-north-arrivals/\(device)/\(sequence)","content":{"title":"Arrived at Depot North","subtitle":"\(device)","body":"\(device) \(event) Depot North at 2026-11-20T08:15:02Z","badge":1,"sound":"default","categoryIdentifier":"arrival","threadIdentifier":"depot-north","summaryArgument":"\(device)","userInfo":{"any":["JSON","value"]}},"trigger":{"type":"location","event":"\(event)","repeats":true,"region":{"type":"circle","id":"depot-north","name":"Depot North"}},"device":"\(device)","fix":{"timestamp":"2026-11-20T08:15:02Z","latitude":52.5201,"longitude":13.4049,"horizontalAccuracy":8},"firedAt":"2026-11-20T08:15:02Z"}
            """.utf8)
    }
}

/// mosquitto on a free loopback port with a private config in a temp directory (no persistence, unlimited queue);
/// `stop()` ends it and removes the directory.
final class LocalMosquitto {
    let port: Int
    private let process: Process
    private let directory: URL

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static func start() throws -> LocalMosquitto {
        guard let executable = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ValidationError("mosquitto is not installed (Tools/setup.sh --bench installs it)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-bench-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let port = try freePort()
            // Root would otherwise switch to the mosquitto user, who cannot read this directory.
            try """
                user root
                persistence false
                # Not 0 ("no maximum"): mosquitto 2.0.11 then mishandles MQTT 5 quotas (fixed in 2.0.15).
                max_queued_messages 1000000
                log_type error
                listener \(port) 127.0.0.1
                allow_anonymous true

                """.write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let broker = LocalMosquitto(port: port, process: p, directory: directory)
            // mosquitto exits at once when it cannot listen (the port was taken in between).
            Thread.sleep(forTimeInterval: 0.5)
            guard p.isRunning else {
                broker.stop()
                throw ValidationError("mosquitto did not start on port \(port)")
            }
            return broker
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// SIGTERM, SIGKILL after 5 s (a SIGTERM blocked in the inherited signal mask must not hang the bench).
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A loopback port nobody listens on: the kernel's pick for a socket bound to port 0.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw ValidationError("no free loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
