import Foundation
import GRDB
import Logging
import Storage
import Testing
import TriggerEngine

@testable import Server

/// Batches submitted concurrently to the engine's host (several connections) are each committed before they are
/// answered, each with its own rejections, and a restart finds every one of them.
@Suite struct ConcurrentIngestTests {
    @Test func concurrentBatchesAreAllCommittedAndAnsweredSeparately() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("concurrent-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("g.sqlite").path
        let logger = Logger(label: "test")
        let host = try EngineHost(store: try Store(path: path, logger: logger), clock: .event, logger: logger)
        _ = try await host.add(try JSONParser.parse(requestJSON("alex")))

        func fix(_ device: String, _ second: Int, inside: Bool) -> LocationFix {
            LocationFix(device: device, timestamp: Timestamp(microseconds: Int64(1_760_000_000 + second) * 1_000_000),
                        latitude: inside ? 52.5219 : 52.53, longitude: 13.4132)
        }
        let count = 16
        let rejected = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for k in 0..<count {
                group.addTask {
                    // The third fix is older than the second: late, and rejected in this batch's answer only.
                    let fixes = [(1, fix("g\(k)", 0, inside: false)), (2, fix("g\(k)", 10, inside: true)),
                                 (3, fix("g\(k)", 5, inside: true))]
                    let r = try await host.process(fixes: fixes.map { (line: $0.0, fix: $0.1) })
                    #expect(r.map(\.line) == [3])
                    return (k, r.count)
                }
            }
            var total = 0
            for try await (_, n) in group { total += n }
            return total
        }
        #expect(rejected == count)

        let store = try Store(path: path, logger: logger)
        let (devices, outbox) = try store.read { db in
            (try DeviceStateRepository().count(in: db), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0)
        }
        #expect(devices == count)
        #expect(outbox == count)
        let restarted = try EngineHost(store: store, clock: .event, logger: logger)
        #expect(await restarted.restored.devices == count)
    }
}
