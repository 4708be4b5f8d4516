import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import TestSupport
import Testing

/// The outbox's bound refuses ingest by the route a request reaches, whatever spelling of its path got it there.
@Suite struct BackPressureRouteTests {
    @Test func everySpellingOfAnIngestPathIsRefusedAtTheBound() async throws {
        let server = try TestServer()
        // A webhook whose port refuses every connection: fired entries stay, so one entry reaches a bound of one.
        // (A port from `free()` was only probed: another test's server took one once and answered 404, which
        // dead-lettered the entry.)
        let refusing = try LoopbackPort.Refusing()
        var c = server.configuration()
        c.sinks = [.webhook(url: "http://127.0.0.1:\(refusing.port)/hook")]
        c.delivery.maximumEntries = 1
        try await server.run(configuration: c) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            let lines = [fixLine("d", 0, inside: false), fixLine("d", 1, inside: true)].joined(separator: "\n")
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines)).status == .ok)
            // The acknowledgement means journaled; the outbox takes the entry from the journal a moment later (its
            // feeder runs on its own task), and only then is the bound reached.
            var outbox = ""
            let full = await eventually {
                outbox = (try? await client.execute(uri: "/v1/outbox", method: .get).text) ?? ""
                return outbox.contains(#""entries":1,"#) && outbox.contains(#""level":"refusing""#)
            }
            #expect(full, "\(outbox)")

            for (k, path) in ["/v1/fixes", "/v1/fixes/", "/v1/fixes//", "/v1//fixes", "/v1/sightings/", "//v1/sightings"].enumerated() {
                // A fix that would fire (an exit) if it got through.
                let body = ByteBuffer(string: fixLine("d", 10 + k, inside: k % 2 == 1))
                let r = try await client.execute(uri: path, method: .post, body: body)
                #expect(r.status == .serviceUnavailable, "\(path) answered \(r.status)")
                #expect(r.headers[.retryAfter] == "2", "\(path)")
            }
            let after = try await client.execute(uri: "/v1/outbox", method: .get).text
            #expect(after.contains(#""entries":1,"awaitingDurability":0,"#), "\(after)")
            // Requests stay accepted at the bound.
            #expect(try await client.execute(uri: "/v1/requests/other/", method: .put,
                                             body: ByteBuffer(string: requestJSON())).status == .created)
        }
        withExtendedLifetime(refusing) {}
    }
}
