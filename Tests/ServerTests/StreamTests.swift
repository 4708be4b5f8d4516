import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TestSupport

/// `GET /v1/stream` against a real serve on loopback: notifications of posted fixes on open streams, the filters,
/// `Last-Event-ID` resumes, slow readers, scoped credentials, bad parameters.
@Suite struct StreamTests {
    static func circle(_ id: String, region: String, latitude: Double, longitude: Double = 13.40, radius: Double = 100) -> String {
        """
        {"identifier": "\(id)", "content": {"title": "t"},
         "trigger": {"type": "location", "repeats": true, "notifyOnExit": true,
                     "region": {"type": "circle", "id": "\(region)", "center": {"latitude": \(latitude), "longitude": \(longitude)}, "radius": \(radius)}}}
        """
    }

    static func fix(_ device: String, _ second: Int, _ latitude: Double, _ longitude: Double = 13.40) -> String {
        #"{"device": "\#(device)", "timestamp": \#(1_760_000_000 + second), "latitude": \#(latitude), "longitude": \#(longitude)}"#
    }

    /// x and z share region id r at different places; y is region s.
    static let requests = "[" + [
        circle("x", region: "r", latitude: 52.50), circle("z", region: "r", latitude: 52.70), circle("y", region: "s", latitude: 52.60),
    ].joined(separator: ",") + "]"
    static let far = 53.5

    /// The requests, and both devices' first fixes.
    static func prepare(_ client: any TestClientProtocol, headers: HTTPFields = [:]) async throws {
        #expect(try await client.execute(uri: "/v1/requests", method: .post, headers: headers, body: ByteBuffer(string: requests)).status == .ok)
        try await post(client, start, headers: headers)
    }

    /// Entries and exits of a and b in x, y and z; the last batch is a entering x alone (it matches every filter
    /// the tests use, so a filtered reader has everything once it has that one).
    /// A device's first fix only sets where it starts (no notification): both start outside.
    static let start = [fix("a", -10, far), fix("b", -10, far)].joined(separator: "\n")
    static let batches: [String] = [
        [fix("a", 0, 52.50), fix("b", 0, 52.60)],
        [fix("a", 10, far), fix("b", 10, far)],
        [fix("a", 20, 52.60), fix("b", 20, 52.70)],
        [fix("a", 30, far), fix("b", 30, far)],
        [fix("b", 40, 52.50), fix("a", 40, 52.70)],
        [fix("b", 50, far), fix("a", 50, far)],
        [fix("a", 60, 52.50)],
    ].map { $0.joined(separator: "\n") }

    static func post(_ client: any TestClientProtocol, _ body: String, headers: HTTPFields = [:]) async throws {
        let r = try await client.execute(uri: "/v1/fixes", method: .post, headers: headers, body: ByteBuffer(string: body))
        #expect(r.status == .ok, "\(r.text)")
    }

    static func open(_ client: any TestClientProtocol, _ path: String = "/v1/stream", headers: [String: String] = [:], receiveBuffer: Int? = nil) async throws -> SSEClient {
        let stream = try SSEClient(port: try #require(client.port), path: path, headers: headers, receiveBuffer: receiveBuffer)
        #expect(await stream.opened(), "\(stream.head)")
        return stream
    }

    @Test func postedFixesReachAnOpenStreamWithTheirPositions() async throws {
        try await TestServer().run { client in
            try await Self.prepare(client)
            let stream = try await Self.open(client)
            let positions = try await Self.open(client, "/v1/stream?positions=true&device=a")
            #expect(stream.status == 200 && stream.head.lowercased().contains("content-type: text/event-stream"))
            try await Self.post(client, Self.batches[0])
            #expect(await stream.read { $0.notifications.count == 2 })
            let n = stream.notifications
            #expect(Set(n.map { "\($0.device ?? "")/\($0.identifier ?? "")" }) == ["a/x", "b/y"])
            // Ids are outbox sequences: decimal, rising.
            let ids = n.compactMap { $0.id.flatMap { Int64($0) } }
            #expect(ids.count == 2 && ids[0] < ids[1])
            // a's position, then its notification; nothing of b.
            #expect(await positions.read { $0.events.count == 2 })
            #expect(positions.events.map(\.name) == ["position", "notification"])
            #expect(positions.events[0].device == "a" && positions.events[0].object["latitude"] as? Double == 52.50)
            #expect(positions.events[1].identifier == "x")
        }
    }

    @Test func filtersByDeviceRequestAndRegion() async throws {
        try await TestServer().run { client in
            try await Self.prepare(client)
            let all = try await Self.open(client)
            let filters: [(query: String, keep: (SSEClient.Event) -> Bool)] = [
                ("device=a", { $0.device == "a" }),
                ("request=x", { $0.identifier == "x" }),
                ("region=r", { $0.regionID == "r" }),
                ("region=s&device=b", { $0.regionID == "s" && $0.device == "b" }),
                ("request=x&request=y", { ["x", "y"].contains($0.identifier) }),
            ]
            var streams: [SSEClient] = []
            for f in filters { streams.append(try await Self.open(client, "/v1/stream?" + f.query)) }
            for b in Self.batches { try await Self.post(client, b) }
            // 2 entries per batch but the last, and each entry exits once: 12 + 1.
            #expect(await all.read { $0.notifications.last?.identifier == "x" && $0.notifications.count == 13 }, "\(all.notifications)")
            let everything = all.notifications
            #expect(Set(everything.map(\.regionID)) == ["r", "s"] && Set(everything.map(\.device)) == ["a", "b"])
            for (f, stream) in zip(filters, streams) {
                let expected = everything.filter(f.keep)
                #expect(!expected.isEmpty && expected.count < everything.count, "\(f.query)")
                let last = try #require(expected.last?.id)
                #expect(await stream.read { $0.notifications.contains { $0.id == last } }, "\(f.query)")
                #expect(stream.notifications == expected, "\(f.query): \(stream.notifications)")
            }
        }
    }

    @Test func lastEventIDResumesExactlyAfterTheEventThenGoesLive() async throws {
        try await TestServer().run { client in
            try await Self.prepare(client)
            let first = try await Self.open(client)
            for b in Self.batches.prefix(5) { try await Self.post(client, b) }
            #expect(await first.read { $0.notifications.count == 10 })
            let ids = first.notifications.compactMap(\.id)
            // Every id in turn: the first batch's two notifications are one record, so this resumes within a record
            // as well as at a record's end.
            for k in [0, 1, 4, 9] {
                let resumed = try await Self.open(client, headers: ["Last-Event-ID": ids[k]])
                let expected = Array(first.notifications[(k + 1)...])
                if let last = expected.last?.id {
                    #expect(await resumed.read { $0.notifications.last?.id == last })
                }
                #expect(resumed.notifications == expected, "after \(ids[k]): \(resumed.notifications)")
                if k == 4 {
                    // Then live: the next batch's events follow, none twice.
                    try await Self.post(client, Self.batches[5])
                    #expect(await first.read { $0.notifications.count == 12 })
                    #expect(await resumed.read { $0.notifications.count == 12 - 5 })
                    #expect(resumed.notifications == Array(first.notifications[5...]))
                }
            }
        }
    }

    @Test func badParametersAndLastEventIDsArePreciseProblems() async throws {
        try await TestServer().run { client in
            let huge = String((Int64(1) << 62) + (Int64(1) << 50))
            for (path, id, status, words) in [
                ("/v1/stream?positions=maybe", nil, 400, "positions: 'maybe' is not true or false"),
                ("/v1/stream?heartbeat=0", nil, 400, "heartbeat: '0' is not an integer in 1…300"),
                ("/v1/stream?buffer=x", nil, 400, "buffer: 'x' is not an integer"),
                ("/v1/stream?device=", nil, 400, "device: an empty value"),
                ("/v1/stream?devices=a", nil, 400, "unknown parameter 'devices'"),
                ("/v1/stream?positions=true&positions=false", nil, 400, "positions: given 2 times"),
                ("/v1/stream", "abc", 400, "Last-Event-ID 'abc' is not an event id of this stream"),
                ("/v1/stream", "5", 400, "Last-Event-ID '5' is not an event id"),
                ("/v1/stream", huge, 400, "beyond the journal's end"),
            ] as [(String, String?, Int, String)] {
                let stream = try SSEClient(port: try #require(client.port), path: path, headers: id.map { ["Last-Event-ID": $0] } ?? [:])
                #expect(await stream.read { $0.bodyText.contains("}") || $0.closed })
                #expect(stream.status == status, "\(path) \(id ?? ""): \(stream.head)")
                #expect(stream.head.lowercased().contains("application/problem+json"))
                #expect(stream.bodyText.contains(words), "\(path) \(id ?? ""): \(stream.bodyText)")
            }
        }
    }

    /// A reader that reads nothing: the fast reader still gets every event, every batch is accepted, and once the
    /// slow one reads, it has every event too, once each (it lagged, was told, and read the rest from the journal).
    @Test func aSlowReaderStallsNeitherTheEngineNorAFastReader() async throws {
        try await TestServer().run { client in
            let batches = 40, devices = 25
            let request = Self.circle("x", region: "r", latitude: 52.50, radius: 1000)
            #expect(try await client.execute(uri: "/v1/requests/x", method: .put, body: ByteBuffer(string: request)).status == .created)
            let slow = try await Self.open(client, "/v1/stream?buffer=8", receiveBuffer: 2048)
            let fast = try await Self.open(client)
            // The first batch places every device outside; each later one moves every device across the region's
            // border: one notification each (entry, then exit).
            for k in 0...batches {
                let latitude = k % 2 == 1 ? 52.50 : Self.far
                try await Self.post(client, (0..<devices).map { Self.fix("dev-\($0)", k * 10, latitude) }.joined(separator: "\n"))
            }
            let total = batches * devices
            #expect(await fast.read { $0.notifications.count >= total })
            #expect(fast.notifications.count == total && Set(fast.notifications.compactMap(\.id)).count == total)
            #expect(await slow.read { $0.notifications.count >= total })
            #expect(slow.notifications.compactMap(\.id) == fast.notifications.compactMap(\.id))
            for lagged in slow.events where lagged.name == "lagged" {
                #expect(lagged.object["action"] as? String == "resuming from the journal", "\(lagged)")
            }
        }
    }

    @Test func aDeviceCredentialStreamsOnlyItsOwnDevices() async throws {
        let token = "admin-s3cret"
        try await TestServer().run(token: token) { client in
            let admin: HTTPFields = [.authorization: "Bearer \(token)"]
            try await Self.prepare(client, headers: admin)
            let a = try await CredentialTests.create(client, scope: "device", devices: ["a"])
            let ingest = try await CredentialTests.create(client, scope: "ingest")
            let all = try await Self.open(client, headers: ["Authorization": "Bearer \(token)"])
            let own = try await Self.open(client, headers: ["Authorization": "Bearer \(a.secret)"])
            let foreign = try SSEClient(port: try #require(client.port), path: "/v1/stream?device=b", headers: ["Authorization": "Bearer \(a.secret)"])
            let wrongScope = try SSEClient(port: try #require(client.port), headers: ["Authorization": "Bearer \(ingest.secret)"])
            let anonymous = try SSEClient(port: try #require(client.port))
            for (s, status) in [(foreign, 403), (wrongScope, 403), (anonymous, 401)] {
                #expect(await s.read { $0.bodyText.contains("}") || $0.closed })
                #expect(s.status == status, "\(s.head) \(s.bodyText)")
            }
            for b in Self.batches { try await Self.post(client, b, headers: admin) }
            #expect(await all.read { $0.notifications.count == 13 })
            let expected = all.notifications.filter { $0.device == "a" }
            let last = try #require(expected.last?.id)
            #expect(await own.read { $0.notifications.contains { $0.id == last } })
            #expect(own.notifications == expected)
        }
    }
}
