import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// kill -9 the service while the scheduler is down, restart it, bring the scheduler back: every fired
/// notification arrives.
@Suite(.serialized) struct WebhookCrashTests {
    @Test func killNineWhileTheSchedulerIsDownLosesNothing() async throws {
        let server = try TestServer()
        let scheduler = WebhookScheduler()
        try await scheduler.reservePort()
        let arguments = ["--sink", "webhook:\(scheduler.url)", "--retry-initial", "0.05", "--retry-max", "0.5",
                         "--webhook-timeout", "2"]
        var serve = try ServeProcess(database: server.database, sink: server.sinkPath, directory: server.directory,
                                     arguments: arguments)
        try await serve.waitUntilListening()
        _ = try await serve.put("/v1/requests/alex", requestJSON())
        for batch in CrashTests.batches { _ = try await serve.post("/v1/fixes", batch) }
        // Answered means committed: every notification these fired is in the outbox, and none reached the scheduler.
        serve.kill9()
        #expect(scheduler.receipts.isEmpty)

        serve = try ServeProcess(database: server.database, sink: server.sinkPath, directory: server.directory,
                                 arguments: arguments)
        try await serve.waitUntilListening()
        try await scheduler.start()
        // The NDJSON sink (delivered before and after the kill) holds every notification fired, at least once.
        var expected = Set<String>()
        let all = await eventually {
            expected = Set(ndjsonNotifications(server.sinkPath).map(\.deliveryId))
            return expected.count > 100 && Set(scheduler.acknowledged) == expected
        }
        await serve.stop()
        await scheduler.stop()
        #expect(all, "\(expected.count) fired, \(Set(scheduler.acknowledged).count) acknowledged by the scheduler")
        #expect(expected.count > 100)
        #expect(Set(scheduler.acknowledged) == expected)
    }
}
