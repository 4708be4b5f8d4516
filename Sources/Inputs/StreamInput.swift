import Endpoints
import Host
import Ingest
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TriggerEngine

/// An input besides HTTP (`--input`): NDJSON from standard input or every connection to a TCP listener, or a gpsd
/// daemon (`StreamInput+Gpsd`). NDJSON records go
/// through the same line framing and decoders as `POST /v1/fixes` and `/v1/sightings`, and each chunk read is a
/// batch committed like an HTTP one. A bad line is logged with its line number and counted in
/// `geotrigger_rejections_total`; it never stops the stream. Graceful shutdown stops reading.
public struct StreamInput: Service {
    public let input: InputConfiguration
    public let host: EngineHost
    public let logger: Logger
    /// Receives the TCP listener's port once bound (useful with port 0).
    public var onListening: @Sendable (Int) async -> Void = { _ in }

    public init(input: InputConfiguration, host: EngineHost, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.input = input
        self.host = host
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        switch input {
        case .stdin:
            await ingest(StandardInputChunks().cancelOnGracefulShutdown(), source: input.name)
        case .tcp(let address, let port, _):
            try await listen(host: address, port: port)
        case .gpsd(let address, let port, let device):
            await followGpsd(host: address, port: port, device: device)
        case .mqtt(let spec):
            await followMQTT(spec)
        }
    }

    private func listen(host address: String, port: Int) async throws {
        // Resolved once: the loopback check is about the very address bound, not the name's text.
        let resolved = try NetworkAddress.resolve(address, port: port, what: "the TCP input")
        guard NetworkAddress.isLoopback(resolved) else {
            throw EndpointError(reason: "the TCP input \(input.name) resolves to \(resolved), not a loopback address")
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .bind(to: resolved) { child in
                child.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
                }
            }
        let bound = server.channel.localAddress?.port ?? port
        logger.notice("input listening", metadata: ["input": "\(input.name)", "host": "\(address)", "port": "\(bound)"])
        await onListening(bound)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections.cancelOnGracefulShutdown() {
                    group.addTask {
                        let peer = connection.channel.remoteAddress.map { "\($0)" } ?? "unknown"
                        do {
                            try await connection.executeThenClose { inbound, _ in
                                await ingest(inbound.cancelOnGracefulShutdown(), source: "\(input.name) from \(peer)")
                            }
                        } catch {
                            logger.warning("input connection failed", metadata: ["input": "\(input.name)", "peer": "\(peer)", "error": "\(ConnectionFailure.reason(error))"])
                        }
                    }
                }
            }
        }
        logger.notice("input stopped", metadata: ["input": "\(input.name)"])
    }

    /// Reads one stream to its end (or until shutdown, or until the engine refuses input).
    func ingest<Chunks: AsyncSequence>(_ chunks: Chunks, source: String) async where Chunks.Element == ByteBuffer {
        let host = host
        switch input.records {
        case .fixes:
            let reader = IngestReader(decoder: NDJSONFixDecoder(source: source), limit: .max) { fixes, lines in
                try await host.process(fixes: fixes, lines: lines)
            }
            await read(chunks, reader, source: source)
        case .sightings:
            let reader = IngestReader(decoder: NDJSONSightingDecoder(source: source), limit: .max) { sightings, lines in
                try await host.process(sightings: sightings, lines: lines)
            }
            await read(chunks, reader, source: source)
        }
    }

    /// Reads a stream to its end; returns how many records were accepted (also of a stream that failed part-way).
    @discardableResult
    func read<Chunks: AsyncSequence, D: StreamingRecordDecoder>(
        _ chunks: Chunks, _ reader: IngestReader<D>, source: String
    ) async -> Int where Chunks.Element == ByteBuffer {
        var reader = reader
        let logger = logger
        let metrics = InputMetrics()
        reader.onReject = { entry, kind in
            metrics.rejected(kind)
            logger.warning("input record rejected", metadata: [
                "input": "\(source)", "line": "\(entry.line)", "field": "\(entry.field ?? "-")", "reason": "\(entry.reason)",
            ])
        }
        logger.info("input opened", metadata: ["input": "\(source)"])
        do {
            let summary = try await reader.read(chunks)
            logger.notice("input ended", metadata: ["input": "\(source)", "accepted": "\(summary.accepted)", "rejected": "\(summary.rejected)"])
            return summary.accepted
        } catch let error as HostError {
            logger.warning("input stopped", metadata: ["input": "\(source)", "reason": "\(error)"])
        } catch let error as IngestReadError {
            logger.warning("input stopped", metadata: ["input": "\(source)", "reason": "\(error)"])
        } catch {
            logger.warning("input failed", metadata: ["input": "\(source)", "error": "\(error)"])
        }
        return reader.summary.accepted
    }
}
