import Host
import Ingest
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle
import TriggerEngine

/// `--input gpsd:HOST:PORT[?device=NAME]`: a client of gpsd's JSON protocol. It asks for reports with
/// `?WATCH={"enable":true,"json":true}`, takes each TPV with a fix as a fix (`GpsdDecoder`), and when gpsd goes away
/// or cannot be reached it reconnects, waiting 0.5 s, then twice as long each time up to 30 s (back to 0.5 s once
/// a connection has delivered a fix); every reconnection is logged and counted.
extension StreamInput {
    static let gpsdWatch = #"?WATCH={"enable":true,"json":true}"# + "\n"

    func followGpsd(host address: String, port: Int, device: String?) async {
        let reconnects = Counter(label: "geotrigger_input_reconnects_total", dimensions: [("input", input.name)])
        var delay = Duration.milliseconds(500)
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            var delivered = false
            var ended = "connection ended"
            do {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.seconds(10))
                    .connect(host: address, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                    }
                logger.notice("gpsd connected", metadata: ["input": "\(input.name)"])
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: Self.gpsdWatch))
                    let host = host
                    let reader = IngestReader(decoder: GpsdStreamDecoder(source: input.name, device: device), limit: .max) { fixes, lines in
                        try await host.process(fixes: fixes, lines: lines)
                    }
                    delivered = await read(inbound.cancelOnGracefulShutdown(), reader, source: input.name) > 0
                }
            } catch {
                ended = ConnectionFailure.reason(error)
            }
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            if delivered { delay = .milliseconds(500) }
            reconnects.increment()
            // One line per attempt, with the system's reason: `gpsd at localhost:2947: connection refused; retrying in 1 s`.
            logger.warning("gpsd at \(address):\(port): \(ended); retrying in \(ConnectionFailure.seconds(delay))",
                           metadata: ["input": "\(input.name)"])
            let wait = delay
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            delay = min(delay * 2, .seconds(30))
        }
        logger.notice("input stopped", metadata: ["input": "\(input.name)"])
    }
}

/// `GpsdDecoder` for a live connection: its skipped reports (TPVs without a fix, other classes) are counted in
/// `geotrigger_gpsd_skipped_total{reason}` as they arrive.
struct GpsdStreamDecoder: StreamingRecordDecoder {
    var decoder: GpsdDecoder
    private var counted: [String: Int] = [:]

    init(source: String, device: String?) {
        decoder = GpsdDecoder(source: source, device: device)
    }

    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        decoder.decode(chunk, onRecord: onRecord, onError: onError)
        count()
    }

    mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        decoder.finish(onRecord: onRecord, onError: onError)
        count()
    }

    var warnings: [IngestWarning] { [] }

    private mutating func count() {
        for (reason, n) in decoder.skipped where n != counted[reason] {
            Counter(label: "geotrigger_gpsd_skipped_total", dimensions: [("reason", reason)]).increment(by: n - (counted[reason] ?? 0))
            counted[reason] = n
        }
    }
}
