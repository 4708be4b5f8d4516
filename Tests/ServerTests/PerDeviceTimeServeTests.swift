import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import TestSupport
import Testing

/// Per-device time through the service: each device's fixes and sightings kept in order, interleaved across
/// devices at random (within the allowed lateness) and posted over HTTP in random batches, give the notifications
/// of the sorted single-batch run, deliveryIds included.
@Suite struct PerDeviceTimeServeTests {
    @Test(arguments: [1, 2])
    func randomBatchesOverHTTPGiveTheSortedRunsNotifications(seed: Int) async throws {
        let scenario = TimeScenario(seed: UInt64(seed) &+ 500, devices: 8, observers: 2)
        let lateness = 120.0
        let reference = try scenario.run(scenario.sorted, lateness: lateness, finish: false)
        #expect(reference.count > 20)
        let batches = TimeScenario.batches(scenario.interleaved(seed: UInt64(seed), maxDisorder: lateness / 2), seed: UInt64(seed))
        let server = try TestServer()
        var configuration = server.configuration(clock: .event)
        configuration.allowedLateness = lateness
        try await server.run(configuration: configuration) { client in
            let added = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: scenario.requestsJSON))
            #expect(added.status == .ok || added.status == .created, "\(added.text)")
            for batch in batches {
                // Consecutive fixes go in one body, consecutive sightings in another, in the batch's order.
                var k = 0
                while k < batch.count {
                    let isFix: Bool = if case .fix = batch[k] { true } else { false }
                    var run: [String] = []
                    while k < batch.count, (batch[k].isFix == isFix) {
                        run.append(batch[k].jsonLine)
                        k += 1
                    }
                    let r = try await client.execute(uri: isFix ? "/v1/fixes" : "/v1/sightings", method: .post,
                                                     body: ByteBuffer(string: run.joined(separator: "\n")))
                    #expect(r.text.contains(#""rejected":0"#), "\(r.text)")
                }
            }
        }
        // Beside the whole suite (servers killed and restarted in parallel) the sink can take long to catch up.
        let lines = try await server.sinkLines(atLeast: reference.count)
        let served = lines.compactMap(TimeScenario.key(jsonLine:)).sorted()
        #expect(TimeScenario.difference(served, reference) == nil, "seed \(seed)")
    }
}

extension TimeScenario.Input {
    var isFix: Bool { if case .fix = self { true } else { false } }
}
