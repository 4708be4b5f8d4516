import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A real HTTP scheduler on loopback for delivery tests: records every POST it receives and answers as its script
/// says: accept, fail (a status, optionally with Retry-After), or answer only after a delay. It can be stopped (the
/// scheduler goes away; connections are then refused) and started again on the same port.
final class WebhookScheduler: Sendable {
    enum Action: Sendable {
        case accept
        case status(Int, retryAfter: Int? = nil, body: String = "")
        /// Accepts, but only after `Duration`: longer than the client's timeout, the client sees a failure.
        case delay(Duration)
    }

    struct Receipt: Sendable {
        var index: Int
        var body: [UInt8]
        var idempotencyKey: String?
        var signature: String?
        /// The deliveryIds and devices in the body, in order.
        var notifications: [(deliveryId: String, device: String)]
        /// The client saw a 2xx in time: the delivery counts as acknowledged.
        var acknowledged: Bool
    }

    private struct State {
        var receipts: [Receipt] = []
        var script: @Sendable (Int, [(deliveryId: String, device: String)]) -> Action = { _, _ in .accept }
        var running: (group: ServiceGroup, task: Task<Void, any Error>)?
    }

    private let state = Mutex(State())
    private let portBox = Mutex(0)
    /// The acknowledged delays: a delay at least this long counts as a failed acknowledgement.
    let clientTimeout: Duration

    var port: Int { portBox.withLock { $0 } }
    var url: String { "http://127.0.0.1:\(port)/hook" }

    init(clientTimeout: Duration = .seconds(10)) { self.clientTimeout = clientTimeout }

    func script(_ body: @escaping @Sendable (_ index: Int, _ notifications: [(deliveryId: String, device: String)]) -> Action) {
        state.withLock { $0.script = body }
    }

    var receipts: [Receipt] { state.withLock { $0.receipts } }

    /// Acknowledged deliveryIds, in order of acknowledgement.
    var acknowledged: [String] { receipts.filter(\.acknowledged).flatMap { $0.notifications.map(\.deliveryId) } }

    /// Starts listening, on the previous port if there was one (0: the system picks one first). The previous port
    /// can be taken for a moment: a service retrying deliveries to it while nothing listens may connect to itself
    /// (a loopback connection whose source port is the port it dials), so binding is retried for up to 10 s.
    func start() async throws {
        var failure: (any Error)?
        for _ in 0..<100 {
            do { try await listen(); return } catch { failure = error }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw failure ?? CancellationError()
    }

    private struct NotListening: Error { var error: (any Error)? }

    private func listen() async throws {
        let router = Router()
        router.post("hook") { request, _ in try await self.handle(request) }
        var logger = Logger(label: "webhook-scheduler")
        logger.logLevel = .critical
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                              logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            // A server that ends before it runs (the bind failed) ends the wait below instead of leaving it hanging.
            defer { continuation.finish() }
            try await group.run()
        }
        var listening: Int?
        for await p in stream {
            listening = p
            break
        }
        guard let listening else {
            let error: (any Error)? = await { do { try await task.value; return nil } catch { return error } }()
            throw NotListening(error: error)
        }
        portBox.withLock { $0 = listening }
        state.withLock { $0.running = (group, task) }
    }

    /// Stops listening: from now on connections are refused.
    func stop() async {
        guard let running = state.withLock({ s in defer { s.running = nil }; return s.running }) else { return }
        await running.group.triggerGracefulShutdown()
        _ = try? await running.task.value
    }

    /// Starts, notes the port, stops: a scheduler that is down from the start, on a known port.
    func reservePort() async throws {
        try await start()
        await stop()
    }

    private func handle(_ request: Request) async throws -> Response {
        let body = Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
        let notifications = Self.notifications(body)
        let (index, action) = state.withLock { s in (s.receipts.count, s.script(s.receipts.count, notifications)) }
        var acknowledged = false
        var response = Response(status: .ok)
        switch action {
        case .accept:
            acknowledged = true
        case .status(let code, let retryAfter, let text):
            var headers: HTTPFields = [:]
            if let retryAfter { headers[.retryAfter] = String(retryAfter) }
            response = Response(status: .init(code: code), headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        case .delay(let d):
            acknowledged = d < clientTimeout
            state.withLock { $0.receipts.append(Self.receipt(index, body, request, notifications, acknowledged)) }
            try? await Task.sleep(for: d)
            return response
        }
        state.withLock { $0.receipts.append(Self.receipt(index, body, request, notifications, acknowledged)) }
        return response
    }

    private static func receipt(_ index: Int, _ body: [UInt8], _ request: Request,
                                _ notifications: [(deliveryId: String, device: String)], _ acknowledged: Bool) -> Receipt {
        Receipt(index: index, body: body, idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!],
                signature: request.headers[HTTPField.Name("X-GeoTrigger-Signature")!], notifications: notifications,
                acknowledged: acknowledged)
    }

    /// The deliveryIds and devices of a body holding one notification object or an array of them.
    static func notifications(_ body: [UInt8]) -> [(deliveryId: String, device: String)] {
        guard let json = try? JSONSerialization.jsonObject(with: Data(body)) else { return [] }
        let objects = (json as? [[String: Any]]) ?? [(json as? [String: Any]) ?? [:]]
        return objects.map { (($0["deliveryId"] as? String) ?? "", ($0["device"] as? String) ?? "") }
    }

    /// `sha256=HEX`, as the service computes it.
    static func signature(_ body: [UInt8], secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
