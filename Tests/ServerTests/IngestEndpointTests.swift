import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `/v1/fixes` and `/v1/sightings`: NDJSON or a JSON array, per-line errors, notifications to the sink, device state,
/// metrics.
@Suite struct IngestEndpointTests {
    @Test func ndjsonFixesFireAndReportBadLines() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            let body = [fixLine("d", 0, inside: false), fixLine("d", 10, inside: true), fixLine("d", 5, inside: true), "not json",
                        #"{"device": "d", "timestamp": 1760000020, "latitude": 95, "longitude": 13}"#].joined(separator: "\n")
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: body))
            #expect(r.status == .ok)
            #expect(r.text.hasPrefix(#"{"accepted":2,"rejected":3,"errors":[{"line":3,"field":null"#))
            #expect(r.text.contains(#"{"line":5,"field":"latitude""#))

            let device = try await client.execute(uri: "/v1/devices/d", method: .get)
            #expect(device.text.contains(#""phase":"inside""#))
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.text.contains("geotrigger_rejections_total{reason=\"late\"}"))
            #expect(metrics.text.contains("geotrigger_notifications_total"))
            // The registry is shared by every test in the process: only presence is checked, not values.
            #expect(metrics.text.contains("geotrigger_transitions_total{event=\"entry\"}"))
            #expect(metrics.text.contains("geotrigger_evaluation_seconds_count"))
            #expect(metrics.text.contains("geotrigger_journal_durable_seconds_count"))
        }
        let lines = try await server.sinkLines(atLeast: 1)
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""deliveryId":"alex/d/1-1760000010""#) == true)
    }

    @Test func jsonArrayOfFixesIsAcceptedWithElementIndexesAsLines() async throws {
        try await TestServer().run { client in
            let body = "[" + [fixLine("e", 0, inside: false), #"{"device": "e"}"#, fixLine("e", 30, inside: true)].joined(separator: ",") + "]"
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: body))
            #expect(r.text.hasPrefix(#"{"accepted":2,"rejected":1,"errors":[{"line":2"#))
            let bad = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: "[1,"))
            #expect(bad.status == .badRequest)
        }
    }

    @Test func sightingsAreEvaluated() async throws {
        try await TestServer().run { client in
            let body = #"{"device": "gw", "timestamp": 1760000000, "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "rssi": -60, "txPower": -59}"#
                + "\nnonsense\n"
            let r = try await client.execute(uri: "/v1/sightings", method: .post, body: ByteBuffer(string: body))
            #expect(r.status == .ok)
            #expect(r.text.contains(#""rejected":1"#))
            #expect(r.text.contains(#""line":2"#))
        }
    }

    @Test func healthAndReadiness() async throws {
        try await TestServer().run { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(health.status == .ok)
            #expect(ready.status == .ok)
        }
    }
}
