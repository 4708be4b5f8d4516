import Delivery
import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Sinks
import Synchronization
import Testing
import TestSupport

/// Delivery to a real HTTP scheduler on loopback that refuses connections, answers 500, 429 and 400, answers too
/// late, and goes away: every notification arrives, in order per device, each deliveryId acknowledged exactly once,
/// and a deliveryId arrives twice only after a failed acknowledgement.
@Suite(.serialized) struct WebhookDeliveryTests {
    static let secret = "s3cret"
    static let devices = (0..<6).map { "dev-\($0)" }

    /// `rounds` batches; in each, every device moves in or out of the circle, so most fixes fire.
    static func batches(_ rounds: Range<Int>) -> [String] {
        rounds.map { b in devices.enumerated().map { k, d in fixLine(d, b * 10 + k, inside: (b + k) % 2 == 0) }.joined(separator: "\n") }
    }

    func configuration(_ server: TestServer, scheduler: WebhookScheduler, batch: Int = 1) -> ServerConfiguration {
        var c = server.configuration()
        c.sinks = [.ndjson(path: server.sinkPath), .webhook(url: scheduler.url)]
        c.delivery.retry = RetryPolicy(initial: .milliseconds(20), maximum: .milliseconds(200))
        c.delivery.webhook = WebhookOptions(batch: batch, secret: Array(Self.secret.utf8), timeout: .seconds(1), concurrency: 4)
        return c
    }

    /// The NDJSON reference once it holds every notification fired so far (its sink's depth is 0).
    func completeReference(_ server: TestServer, _ client: any TestClientProtocol) async throws -> [(deliveryId: String, device: String)] {
        let done = await eventually {
            guard let r = try? await client.execute(uri: "/v1/outbox", method: .get),
                let json = try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any],
                let sinks = json["sinks"] as? [[String: Any]]
            else { return false }
            return sinks.first { ($0["name"] as? String)?.hasPrefix("ndjson:") == true }?["depth"] as? Int == 0
        }
        #expect(done)
        return ndjsonNotifications(server.sinkPath)
    }

    /// The service's count of failed deliveries to the scheduler as it saw them (refused connections, timeouts,
    /// 5xx, 429): each is a failed acknowledgement.
    func clientSideFailures(_ client: any TestClientProtocol, _ scheduler: WebhookScheduler) async throws -> Int {
        let metrics = try await client.execute(uri: "/metrics", method: .get).text
        let line = metrics.split(separator: "\n").first {
            $0.hasPrefix("geotrigger_delivery_failures_total{") && $0.contains(scheduler.url) && $0.contains(#"kind="retryable""#)
        }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// The checks every scenario shares. `reference` is the NDJSON sink: every notification fired, in firing order.
    /// `failures`: the failed acknowledgements the service counted; the repeats may not outnumber them.
    func checkDelivery(_ scheduler: WebhookScheduler, reference: [(deliveryId: String, device: String)], failures: Int = 0) {
        let order = Dictionary(uniqueKeysWithValues: reference.enumerated().map { ($1.deliveryId, $0) })
        let receipts = scheduler.receipts
        // Every notification acknowledged (at least once: the scheduler cannot see a timeout on the client's side).
        let acknowledged = receipts.filter(\.acknowledged).flatMap { $0.notifications.map(\.deliveryId) }
        #expect(Set(acknowledged) == Set(reference.map(\.deliveryId)))
        // Duplicates only after a failed acknowledgement: each redelivery follows a failure the service saw.
        let received = receipts.flatMap { $0.notifications.map(\.deliveryId) }
        #expect(received.count - Set(received).count <= failures, "\(received.count - Set(received).count) repeats, \(failures) failures")
        // In order per device: each notification's first receipt moves forward, never back. A repeat is not held to
        // it: a request the service gave up on (a timeout on a loaded machine) can reach the scheduler after the
        // retry and the device's next batch; the repeats are bounded by the failures above.
        var last: [String: Int] = [:]
        var seen = Set<String>()
        for r in receipts {
            for n in r.notifications {
                let position = order[n.deliveryId] ?? -1
                #expect(position >= 0, "unknown deliveryId \(n.deliveryId)")
                guard seen.insert(n.deliveryId).inserted else { continue }
                if let previous = last[n.device] {
                    #expect(position >= previous, "\(n.deliveryId) after a later notification of \(n.device)")
                }
                last[n.device] = position
            }
            // Idempotency-Key and signature.
            #expect(r.idempotencyKey == r.notifications.first?.deliveryId)
            #expect(r.signature == WebhookScheduler.signature(r.body, secret: Self.secret))
        }
    }

    @Test func flakySchedulerReceivesEverythingInOrderPerDevice() async throws {
        let server = try TestServer()
        let scheduler = WebhookScheduler(clientTimeout: .seconds(1))
        try await scheduler.reservePort()
        scheduler.script { index, _ in
            switch index % 9 {
            case 1: .status(500, body: "busy")
            case 3: .delay(.milliseconds(1500))
            case 5: index < 10 ? .status(429, retryAfter: 1) : .status(503)
            default: .accept
            }
        }
        let failures = try await server.run(configuration: configuration(server, scheduler: scheduler)) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            // The scheduler is down: connections are refused.
            for b in Self.batches(0..<5) { _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: b)) }
            try await Task.sleep(for: .milliseconds(300))
            try await scheduler.start()
            for b in Self.batches(5..<10) { _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: b)) }
            try await Task.sleep(for: .milliseconds(200))
            // It goes away, and comes back.
            await scheduler.stop()
            for b in Self.batches(10..<15) { _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: b)) }
            try await Task.sleep(for: .milliseconds(300))
            try await scheduler.start()
            let reference = try await completeReference(server, client)
            #expect(reference.count > 60)
            let all = await eventually { Set(scheduler.acknowledged).count >= reference.count }
            #expect(all)
            // Settled everywhere: the outbox is empty.
            let settled = await eventually {
                let outbox = try? await client.execute(uri: "/v1/outbox", method: .get)
                return outbox?.text.contains(#""entries":0,"#) == true
            }
            #expect(settled)
            let metrics = try await client.execute(uri: "/metrics", method: .get).text
            #expect(metrics.contains("geotrigger_delivery_retries_total{sink=\"webhook:\(scheduler.url)\"}"))
            #expect(metrics.contains("geotrigger_delivery_latency_seconds"))
            return try await clientSideFailures(client, scheduler)
        }
        await scheduler.stop()
        let reference = ndjsonNotifications(server.sinkPath)
        checkDelivery(scheduler, reference: reference, failures: failures)
        #expect(failures > 0)
        // The script's failures did happen: retries and a duplicate after the late answer.
        #expect(scheduler.receipts.contains { !$0.acknowledged })
        #expect(scheduler.receipts.count > reference.count)
    }

    @Test func batchesArePostedAsArraysInOrderPerDevice() async throws {
        let server = try TestServer()
        let scheduler = WebhookScheduler()
        try await scheduler.reservePort()
        let failures = try await server.run(configuration: configuration(server, scheduler: scheduler, batch: 5)) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            for b in Self.batches(0..<12) { _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: b)) }
            try await scheduler.start()
            let reference = try await completeReference(server, client)
            let all = await eventually { Set(scheduler.acknowledged).count >= reference.count }
            #expect(all)
            return try await clientSideFailures(client, scheduler)
        }
        await scheduler.stop()
        checkDelivery(scheduler, reference: ndjsonNotifications(server.sinkPath), failures: failures)
        let receipts = scheduler.receipts
        #expect(receipts.allSatisfy { $0.body.first == UInt8(ascii: "[") && (1...5).contains($0.notifications.count) })
        // A request may carry several devices (a lane tops its batch up with idle devices'); each device's part
        // is in firing order.
        let order = Dictionary(uniqueKeysWithValues: ndjsonNotifications(server.sinkPath).enumerated().map { ($1.deliveryId, $0) })
        for receipt in receipts {
            for (_, part) in Dictionary(grouping: receipt.notifications, by: \.device) {
                let ranks = part.map { order[$0.deliveryId] ?? -1 }
                #expect(ranks == ranks.sorted() && !ranks.contains(-1))
            }
        }
        #expect(receipts.contains { $0.notifications.count == 5 })
    }

    @Test func refusalBecomesDeadLetterAndReplays() async throws {
        let server = try TestServer()
        let scheduler = WebhookScheduler()
        try await scheduler.start()
        // The second notification of dev-2 is refused (400) until `refuse` is cleared.
        struct Refusal { var refuse = true; var seen: [String] = [] }
        let refusal = Mutex(Refusal())
        scheduler.script { _, notifications in
            guard let n = notifications.first, n.device == "dev-2" else { return .accept }
            return refusal.withLock { r in
                if !r.seen.contains(n.deliveryId) { r.seen.append(n.deliveryId) }
                return r.refuse && r.seen.count > 1 && r.seen[1] == n.deliveryId ? .status(400, body: "no such recipient") : .accept
            }
        }
        try await server.run(configuration: configuration(server, scheduler: scheduler)) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            for b in Self.batches(0..<6) { _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: b)) }
            let reference = try await completeReference(server, client)
            let refused = try #require(reference.filter { $0.device == "dev-2" }.dropFirst().first?.deliveryId)
            // Everything else arrives, the refused device's later notifications included.
            let rest = await eventually { Set(scheduler.acknowledged).count >= reference.count - 1 }
            #expect(rest)
            #expect(!scheduler.acknowledged.contains(refused))
            var outbox = ""
            let dead = await eventually {
                outbox = (try? await client.execute(uri: "/v1/outbox", method: .get).text) ?? ""
                return outbox.contains(#""deadLetters":1}"#)
            }
            #expect(dead, "\(outbox)")
            #expect(outbox.contains(#""deliveryId":"\#(refused)""#))
            #expect(outbox.contains(#""status":400,"response":"no such recipient""#))
            #expect(outbox.contains(#""depth":0"#))
            // Journal positions are above 2^53: strings, so JavaScript and jq keep every digit.
            let status = try #require(try JSONSerialization.jsonObject(with: Data(outbox.utf8)) as? [String: Any])
            let cursor = try #require((status["sinks"] as? [[String: Any]])?.first?["cursor"] as? String, "\(outbox)")
            #expect(UInt64(cursor).map { $0 > 1 << 53 } == true, "\(cursor)")
            let sequence = try #require((status["deadLetters"] as? [[String: Any]])?.first?["sequence"] as? String, "\(outbox)")
            #expect(UInt64(sequence).map { $0 > 1 << 53 } == true, "\(sequence)")
            let id = try #require(outbox.range(of: #""deadLetters":[{"id":"#).map { Int(outbox[$0.upperBound...].prefix { $0.isNumber }) ?? 0 })

            let unknown = try await client.execute(uri: "/v1/outbox/dead-letters/999999/replay", method: .post)
            #expect(unknown.status == .notFound)
            refusal.withLock { $0.refuse = false }
            let replay = try await client.execute(uri: "/v1/outbox/dead-letters/\(id)/replay", method: .post)
            #expect(replay.status == .accepted)
            let replayed = await eventually { scheduler.acknowledged.contains(refused) }
            #expect(replayed)
            let gone = await eventually {
                (try? await client.execute(uri: "/v1/outbox", method: .get).text)?.contains(#""deadLetters":[]"#) == true
            }
            #expect(gone)
        }
        await scheduler.stop()
    }

    @Test func fullOutboxRefusesIngestUntilTheSchedulerCatchesUp() async throws {
        let server = try TestServer()
        let scheduler = WebhookScheduler()
        try await scheduler.reservePort()
        var c = configuration(server, scheduler: scheduler)
        c.delivery.maximumEntries = 10
        let failures = try await server.run(configuration: c) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            for b in Self.batches(0..<3) { _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: b)) }
            var refused: TestResponse?
            let full = await eventually {
                let r = try? await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.batches(3..<4)[0]))
                refused = r
                return r?.status == .serviceUnavailable
            }
            #expect(full)
            #expect(refused?.headers[.retryAfter] == "2")
            #expect(refused?.headers[.contentType] == "application/problem+json")
            #expect(refused?.text.contains("outbox is at its bound") == true)
            let outbox = try await client.execute(uri: "/v1/outbox", method: .get)
            #expect(outbox.text.contains(#""level":"refusing""#))
            // (Not `geotrigger_outbox_refusing` from /metrics: the gauge is the test process's, set by every suite's
            // server at once, so its value here is a race between them.)

            try await scheduler.start()
            let accepting = await eventually {
                let r = try? await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.batches(4..<5)[0]))
                return r?.status == .ok
            }
            #expect(accepting)
            let reference = try await completeReference(server, client)
            let all = await eventually { Set(scheduler.acknowledged).count >= reference.count }
            #expect(all)
            return try await clientSideFailures(client, scheduler)
        }
        await scheduler.stop()
        checkDelivery(scheduler, reference: ndjsonNotifications(server.sinkPath), failures: failures)
    }
}
