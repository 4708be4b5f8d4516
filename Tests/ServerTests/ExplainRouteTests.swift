import Foundation
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import TestSupport
import Testing
import TriggerEngine

/// `GET /v1/devices/{id}/explain`: the same explanation as the engine's own and as `replay --explain`, for one
/// device's inputs that exercise every reason (docs/why.md).
@Suite struct ExplainRouteTests {
    static let t0 = 1_760_000_000

    /// depot: dwell 60 s, hysteresis 10 m, minimumInterval 300 s; gate: maximumAccuracy 50 m; staff: other devices only.
    static let requests = """
        [{"identifier":"depot","content":{"title":"{event} depot"},"trigger":{"type":"location","repeats":true,"dwell":60,"hysteresis":10,"minimumInterval":300,
          "region":{"type":"circle","id":"depot-region","center":{"latitude":52.52,"longitude":13.4},"radius":200}}},
         {"identifier":"gate","content":{"title":"{event} gate"},"trigger":{"type":"location","repeats":true,"maximumAccuracy":50,
          "region":{"type":"circle","id":"gate-region","center":{"latitude":52.52,"longitude":13.4},"radius":100}}},
         {"identifier":"staff","content":{"title":"{event} staff"},"trigger":{"type":"location","repeats":true,"devices":["someone-else"],
          "region":{"type":"circle","id":"staff-region","center":{"latitude":52.52,"longitude":13.4},"radius":300}}}]
        """

    static func fix(_ second: Int, _ latitude: Double, _ longitude: Double, _ accuracy: Double) -> String {
        #"{"device":"van-1","timestamp":\#(t0 + second),"latitude":\#(latitude),"longitude":\#(longitude),"horizontalAccuracy":\#(accuracy)}"#
    }

    static let fixes = [
        fix(0, 52.53, 13.4, 10),        // 1.1 km north: nothing near
        fix(60, 52.5201, 13.4001, 500), // at the centre, ±500 m: uncertain; gate ignores it; staff out of scope
        fix(120, 52.5201, 13.4001, 15), // inside: depot's dwell starts, gate enters and fires
        fix(90, 52.5201, 13.4001, 15),  // late
        fix(120, 52.5201, 13.4001, 15), // duplicate
        fix(240, 52.5202, 13.4001, 15), // the dwell completed at 180: the depot's entry fires
        fix(300, 52.53, 13.4, 5),       // out: gate's exit fires; depot's is held back by minimumInterval until 480
    ]

    /// The second scenario's requests: a one-shot request, and a dwell that is cancelled.
    static let moreRequests = """
        [{"identifier":"once","content":{"title":"{event} once"},"trigger":{"type":"location","repeats":false,
          "region":{"type":"circle","id":"once-region","center":{"latitude":48.85,"longitude":2.35},"radius":150}}},
         {"identifier":"linger","content":{"title":"{event} linger"},"trigger":{"type":"location","repeats":true,"dwell":300,
          "region":{"type":"circle","id":"linger-region","center":{"latitude":48.86,"longitude":2.35},"radius":150}}},
         {"identifier":"already","content":{"title":"{event} already"},"trigger":{"type":"location","repeats":true,
          "region":{"type":"circle","id":"already-region","center":{"latitude":48.87,"longitude":2.35},"radius":150}}}]
        """

    static func fix2(_ second: Int, _ latitude: Double, _ longitude: Double) -> String {
        #"{"device":"van-1","timestamp":\#(t0 + second),"latitude":\#(latitude),"longitude":\#(longitude),"horizontalAccuracy":5}"#
    }

    static let moreFixes = [
        fix2(0, 48.87, 2.35),           // already inside at the first fix: the initial state, no notification
        fix2(60, 48.85, 2.35),          // enters the one-shot request: it fires and leaves the pending set
        fix2(120, 48.86, 2.35),         // the dwell starts
        fix2(100_000, 48.86, 2.35),     // far ahead of the clock: future
        fix2(180, 48.80, 2.35),         // leaves before the dwell time: cancelled
    ]

    /// The engine's own explanation of the same inputs.
    static func engineExplanation(_ requests: String = requests, _ fixes: [String] = fixes) throws -> DeviceExplanation {
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.explainDepth = 64
        configuration.maximumFuture = 600  // serve's default, given to replay as --max-future 600
        let engine = TriggerEngine(configuration: configuration)
        let decoder = RequestDecoder()
        guard case let .array(items) = try JSONParser.parse(requests) else { throw CancellationError() }
        for item in items { try engine.add(try decoder.decodeRequest(item)) }
        for line in fixes {
            let v = try JSONParser.parse(line)
            let fix = LocationFix(device: "van-1", timestamp: Timestamp(seconds: v["timestamp"]!.doubleValue!),
                                  latitude: v["latitude"]!.doubleValue!, longitude: v["longitude"]!.doubleValue!,
                                  horizontalAccuracy: v["horizontalAccuracy"]?.doubleValue)
            engine.process(fix) { _ in }
        }
        return try #require(engine.explain(device: "van-1"))
    }

    /// `replay --explain van-1` on the scenario: its explain lines.
    static func replayLines(_ requests: String, _ fixes: [String], target: String = "van-1") throws -> [String] {
        let folder = try TestFolders.make("explain")
        let regions = folder.appendingPathComponent("regions.json"), trace = folder.appendingPathComponent("van.ndjson")
        try requests.write(to: regions, atomically: true, encoding: .utf8)
        try (fixes.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
        let replay = try BuiltBinary.run(["replay", regions.path, trace.path, "--explain", target, "--max-future", "600", "-o", "/dev/null"],
                                         reading: .error)
        #expect(replay.status == 0, "\(replay.text)")
        return replay.text.split(separator: "\n").filter { $0.hasPrefix("explain: ") }.map { String($0.dropFirst(9)) }
    }

    /// The route's answer for the scenario, compared with the engine's decision by decision.
    static func compareRoute(_ requests: String, _ fixes: [String], with expected: DeviceExplanation) async throws {
        let server = try TestServer()
        var configuration = server.configuration(clock: .event)
        configuration.explainDepth = 64
        try await server.run(configuration: configuration) { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: requests)).status == .ok)
            for line in fixes {
                _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: line))
            }
            let response = try await client.execute(uri: "/v1/devices/van-1/explain", method: .get)
            #expect(response.status == .ok)
            let answer = try JSONParser.parse(response.text)
            guard case let .array(inputs)? = answer["inputs"] else { Issue.record("no inputs: \(response.text)"); return }
            #expect(inputs.count == expected.inputs.count)
            for (got, want) in zip(inputs, expected.inputs) {
                #expect(got["refused"]?["reason"]?.stringValue == want.refused?.rawValue)
                guard case let .array(decisions)? = got["decisions"] else { Issue.record("no decisions"); continue }
                #expect(decisions.map { $0["request"]?.stringValue ?? "" } == want.decisions.map(\.request))
                #expect(decisions.map { $0["reason"]?.stringValue ?? "" } == want.decisions.map(\.reason))
                #expect(decisions.map { $0["outcome"]?.stringValue ?? "" } == want.decisions.map(\.outcome.rawValue))
                #expect(decisions.map { $0["fired"]?.boolValue ?? false } == want.decisions.map(\.fired))
                #expect(decisions.map { $0["delivered"]?.boolValue ?? false } == want.decisions.map(\.delivered))
            }
        }
    }

    @Test func initialStateOneShotFutureAndCancelledDwellAgreeToo() async throws {
        let expected = try Self.engineExplanation(Self.moreRequests, Self.moreFixes)
        let reasons = expected.inputs.map { input in
            input.refused.map { "refused:\($0.rawValue)" }
                ?? input.decisions.map { "\($0.request):\($0.outcome.rawValue):\($0.fired):\($0.delivered)" }.joined(separator: ",")
        }
        #expect(reasons == [
            "already:initially-inside:false:false", "once:entered:true:true,already:exited:true:false", "linger:dwell-started:false:false",
            "refused:future", "linger:dwell-cancelled:false:false",
        ])
        #expect(try Self.replayLines(Self.moreRequests, Self.moreFixes) == expected.lines)
        try await Self.compareRoute(Self.moreRequests, Self.moreFixes, with: expected)
    }

    @Test func theRouteTheEngineAndReplaySayTheSame() async throws {
        let expected = try Self.engineExplanation()
        // What the scenario is built to show, so the comparison below compares something.
        let reasons = expected.inputs.flatMap { $0.decisions.map { "\($0.request):\($0.standing.rawValue):\($0.outcome.rawValue):\($0.fired)" } }
        #expect(reasons == [
            "depot:uncertain:unchanged:false", "gate:accuracy-too-low:unchanged:false", "staff:out-of-scope:unchanged:false",
            "depot:inside:dwell-started:false", "gate:inside:entered:true", "staff:out-of-scope:unchanged:false",
            "depot:inside:dwell-completed:true", "gate:inside:unchanged:false", "staff:out-of-scope:unchanged:false",
            "depot:outside:exited:false", "gate:outside:exited:true",
        ])
        #expect(expected.inputs.compactMap(\.refused) == [.late, .duplicate])
        #expect(expected.inputs.last?.decisions.first?.suppressedUntil == Timestamp(seconds: Double(Self.t0 + 480)))

        // replay --explain prints the engine's lines, and the route answers the same decisions.
        #expect(try Self.replayLines(Self.requests, Self.fixes) == expected.lines)
        // DEVICE:REQUEST narrows it to one request.
        let gateLines = try Self.replayLines(Self.requests, Self.fixes, target: "van-1:gate")
        #expect(gateLines.count == Self.fixes.count)
        #expect(gateLines.allSatisfy { !$0.contains("depot") && !$0.contains("staff") })
        try await Self.compareRoute(Self.requests, Self.fixes, with: expected)

        let server = try TestServer()
        var configuration = server.configuration(clock: .event)
        configuration.explainDepth = 64
        try await server.run(configuration: configuration) { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: Self.requests)).status == .ok)
            for line in Self.fixes {
                _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: line))
            }
            let answer = try JSONParser.parse(try await client.execute(uri: "/v1/devices/van-1/explain", method: .get).text)
            #expect(answer["recorded"]?.boolValue == true)
            // One request; an unknown request or device is a 404.
            let gate = try JSONParser.parse(try await client.execute(uri: "/v1/devices/van-1/explain?request=gate", method: .get).text)
            guard case let .array(gateInputs)? = gate["inputs"] else { Issue.record("no inputs"); return }
            #expect(gateInputs.allSatisfy { input in
                guard case let .array(d)? = input["decisions"] else { return false }
                return d.allSatisfy { $0["request"]?.stringValue == "gate" }
            })
            #expect(try await client.execute(uri: "/v1/devices/van-1/explain?request=nope", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/devices/nobody/explain", method: .get).status == .notFound)
            // The standing now: the depot's minimumInterval holds until 480.
            guard case let .array(standing)? = answer["standing"] else { Issue.record("no standing"); return }
            #expect(standing.contains { $0["request"]?.stringValue == "depot" && $0["quietUntil"]?.stringValue != nil })
        }
    }

    @Test func anOwnTracksStyleIdWithASlashIsExplainedToo() async throws {
        try await TestServer().run(clock: .event) { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: Self.requests)).status == .ok)
            let fix = #"{"device":"jane/phone","timestamp":\#(Self.t0),"latitude":52.52,"longitude":13.4,"horizontalAccuracy":5}"#
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fix)).status == .ok)
            for path in ["/v1/devices/jane/phone/explain", "/v1/devices/jane%2Fphone/explain"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path)")
                #expect(try JSONParser.parse(response.text)["device"]?.stringValue == "jane/phone", "\(path)")
            }
        }
    }
}
