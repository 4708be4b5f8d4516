import Geometry
import JSON
import TestSupport
import Testing
@testable import TriggerEngine

/// Proximity requests (docs/semantics.md "Proximity"): circles around other devices, one state machine per
/// (subject, target) pair, decided in event-time order.
@Suite struct ProximityTests {
    static let t0 = Timestamp(microseconds: 1_795_161_600_000_000)

    /// A point `metres` east of (52.5, 13.4).
    static func east(_ metres: Double) -> (Double, Double) {
        let per = Geodesy.metresPerDegree(latitude: 52.5)
        return (52.5, 13.4 + metres / per.longitude)
    }

    static func fix(_ device: String, _ seconds: Double, east metres: Double, accuracy: Double? = nil) -> LocationFix {
        let (lat, lon) = east(metres)
        return LocationFix(device: device, timestamp: t0 + .init(seconds: seconds), latitude: lat, longitude: lon, horizontalAccuracy: accuracy)
    }

    static func request(_ id: String = "near", radius: Double = 100, targets: String = #"{"devices":["phone"]}"#,
                        subjects: String? = nil, _ extra: String = "") -> String {
        let s = subjects.map { #","subjects":\#($0)"# } ?? ""
        return #"{"identifier":"\#(id)","content":{"title":"{device} {event} {nearby.device} {nearby.distance} m"},"trigger":{"region":{"type":"proximity","id":"\#(id)-zone","radius":\#(radius),"targets":\#(targets)\#(s)},"repeats":true\#(extra)}}"#
    }

    /// Runs fixes (in the given order) through an engine and ends the input.
    static func run(_ requests: [String], groups: [String: [String]] = [:], _ fixes: [LocationFix], lateness: Double? = nil,
                    batches: Int = 1) throws -> (notifications: [FiredNotification], engine: TriggerEngine) {
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = lateness
        let engine = TriggerEngine(configuration: configuration)
        for (name, members) in groups { engine.setGroup(name, devices: members) }
        try engine.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse("[" + requests.joined(separator: ",") + "]")))
        var out: [FiredNotification] = []
        for f in fixes { engine.process(f) { out.append($0) } }
        engine.finish { out.append($0) }
        return (out, engine)
    }

    static func summary(_ n: [FiredNotification]) -> [String] {
        n.map { "\($0.device) \($0.event.rawValue) \($0.nearby?.device ?? "-") @\(Int(($0.firedAt.microseconds - t0.microseconds) / 1_000_000))" }
    }

    @Test func entryAndExitNameTheOtherDeviceAndTheDistance() throws {
        let (n, engine) = try Self.run([Self.request()], [
            Self.fix("phone", 0, east: 0), Self.fix("van", 1, east: 500), Self.fix("van", 2, east: 60),
            Self.fix("van", 3, east: 70), Self.fix("phone", 4, east: 300),
        ])
        #expect(Self.summary(n) == ["van entry phone @2", "van exit phone @4"])
        let entry = try #require(n.first)
        #expect(entry.regionType == "proximity")
        let nearby = try #require(entry.nearby)
        #expect(abs(nearby.distance - 60) < 0.01)
        #expect(entry.fix?.timestamp == Self.t0 + .init(seconds: 2))
        #expect(entry.content.title == "van entry phone 60 m")
        // The JSON carries the other device's position and the distance.
        let json = try JSONParser.parse(entry.jsonLine)
        #expect(json["nearby"]?["device"]?.stringValue == "phone")
        #expect(json["nearby"]?["distance"]?.doubleValue.map { abs($0 - 60) < 0.01 } == true)
        #expect(json["content"]?["title"]?.stringValue == "van entry phone 60 m")
        // The exit came from the target's move: the subject's evidence is its newest position, the distance the new one.
        #expect(n[1].nearby.map { abs($0.distance - 230) < 0.01 } == true)
        #expect(engine.statistics.proximityInputs == 5)
    }

    @Test func aPairSeenTogetherFirstIsTheInitialStateSilentUnlessInitialTrigger() throws {
        let fixes = [Self.fix("phone", 0, east: 0), Self.fix("van", 1, east: 30), Self.fix("van", 5, east: 400), Self.fix("van", 9, east: 20)]
        #expect(Self.summary(try Self.run([Self.request()], fixes).notifications) == ["van exit phone @5", "van entry phone @9"])
        #expect(Self.summary(try Self.run([Self.request("near", #","initialTrigger":true"#)], fixes).notifications)
            == ["van entry phone @1", "van exit phone @5", "van entry phone @9"])
    }

    @Test func hysteresisCountsBothDevicesAccuracies() throws {
        // radius 100, hysteresis 5, accuracies 10 and 20: inside at ≤ 65 m, outside at ≥ 135 m, else unchanged.
        let r = Self.request("near", radius: 100, #","hysteresis":5"#)
        let (n, _) = try Self.run([r], [
            Self.fix("phone", 0, east: 0, accuracy: 20), Self.fix("van", 1, east: 300, accuracy: 10),
            Self.fix("van", 2, east: 80, accuracy: 10),   // 80 > 65: uncertain, still outside
            Self.fix("van", 3, east: 64, accuracy: 10),   // entry
            Self.fix("van", 4, east: 130, accuracy: 10),  // 130 < 135: uncertain, still inside
            Self.fix("van", 5, east: 136, accuracy: 10),  // exit
            Self.fix("van", 6, east: 64, accuracy: 30),   // 64 > 100 − (30 + 20 + 5) = 45: uncertain
            Self.fix("van", 7, east: 40, accuracy: 30),   // entry
        ])
        #expect(Self.summary(n) == ["van entry phone @3", "van exit phone @5", "van entry phone @7"])
    }

    @Test func dwellCompletesAtItsDeadlineOrIsCancelledByAnOutsideDecision() throws {
        let r = Self.request("near", radius: 100, #","dwell":30"#)
        let (n, engine) = try Self.run([r], [
            Self.fix("phone", 0, east: 0), Self.fix("van", 1, east: 500),
            Self.fix("van", 10, east: 50),   // dwell until 40
            Self.fix("phone", 20, east: 400), // apart at 20: cancelled
            Self.fix("phone", 30, east: 0),  // together again at 30: dwell until 60
            Self.fix("van", 70, east: 20),   // the deadline (60) passed while inside: entry at 60
            Self.fix("van", 80, east: 900),
        ])
        #expect(Self.summary(n) == ["van entry phone @60", "van exit phone @80"])
        #expect(engine.statistics.dwellsCancelled == 1)
    }

    @Test func aOneShotRequestFiresOnceForTheFirstPairInEventTime() throws {
        let r = #"{"identifier":"once","trigger":{"region":{"type":"proximity","id":"z","radius":100,"targets":{"devices":["phone"]}},"repeats":false}}"#
        // van-b's fix arrives first but is later in event time: van-a gets it, whatever the arrival order.
        let (n, engine) = try Self.run([r], [
            Self.fix("phone", 0, east: 0), Self.fix("van-a", 1, east: 500), Self.fix("van-b", 1, east: 500),
            Self.fix("van-b", 6, east: 10), Self.fix("van-a", 5, east: 10), Self.fix("van-a", 9, east: 900),
        ])
        #expect(Self.summary(n) == ["van-a entry phone @5"])
        #expect(engine.delivered.map(\.device) == ["van-a"])
        #expect(engine.pendingCount == 0)
    }

    @Test func aTargetSilentPastMaxAgeDecidesNothingUntilItIsHeardAgain() throws {
        let r = Self.request("near", radius: 100, #""#).replacingOccurrences(of: #""targets""#, with: #""maxAge":60,"targets""#)
        let (n, _) = try Self.run([r], [
            Self.fix("phone", 0, east: 0), Self.fix("van", 1, east: 500),
            Self.fix("van", 30, east: 10),    // entry: the phone's position is 30 s old
            Self.fix("van", 100, east: 900),  // the phone's position is 100 s old: no evidence, still inside
            Self.fix("van", 110, east: 20),   // still nothing to decide
            Self.fix("van", 120, east: 800),
            Self.fix("phone", 130, east: 0),  // heard again: 800 m apart, the exit
        ])
        #expect(Self.summary(n) == ["van entry phone @30", "van exit phone @130"])
    }

    @Test func minimumIntervalAndMaximumAccuracyApplyPerPair() throws {
        let r = Self.request("near", radius: 100, #","minimumInterval":60,"maximumAccuracy":25"#)
        let (n, engine) = try Self.run([r], [
            Self.fix("phone", 0, east: 0), Self.fix("van", 1, east: 500), Self.fix("bus", 1, east: -500),
            Self.fix("van", 10, east: 10),                 // entry
            Self.fix("van", 20, east: 500),                // exit held back (within 60 s of the entry)
            Self.fix("van", 30, east: 10),                 // entry held back
            Self.fix("bus", 31, east: -10, accuracy: 40),  // too inaccurate to decide
            Self.fix("bus", 32, east: -10, accuracy: 5),   // bus's own pair: entry
            Self.fix("van", 40, east: 500),                // exit held back
            Self.fix("van", 80, east: 10),                 // 70 s after the last firing: entry
        ])
        #expect(Self.summary(n) == ["van entry phone @10", "bus entry phone @32", "van entry phone @80"])
        #expect(engine.statistics.suppressedByMinimumInterval == 3)
    }

    @Test func groupsSelectSubjectsAndTargetsAndMayChange() throws {
        // A roaming group: every forklift against every other, both pairs of a meeting notify.
        let r = Self.request("meet", radius: 5, targets: #"{"group":"forklifts"}"#, subjects: #"{"group":"forklifts"}"#)
        let (n, engine) = try Self.run([r], groups: ["forklifts": ["f1", "f2"]], [
            Self.fix("f1", 0, east: 0), Self.fix("f2", 1, east: 50), Self.fix("f3", 1, east: 51),
            Self.fix("f2", 2, east: 3), Self.fix("f3", 3, east: 2),
        ])
        #expect(Self.summary(n).sorted() == ["f1 entry f2 @2", "f2 entry f1 @2"])
        #expect(engine.groups == ["forklifts": ["f1", "f2"]])
        #expect(engine.proximityPairs(ofDevice: "f1").map { "\($0.subject)>\($0.target) \($0.phase)" } == ["f1>f2 inside", "f2>f1 inside"])
        // f3 joins: from its next input on it takes part (its earlier position counts once it has been decided).
        engine.setGroup("forklifts", devices: ["f1", "f2", "f3"])
        var more: [FiredNotification] = []
        engine.process(Self.fix("f3", 10, east: 1)) { more.append($0) }
        engine.process(Self.fix("f1", 11, east: 0)) { more.append($0) }
        engine.finish { more.append($0) }
        #expect(Self.summary(more).sorted() == [])  // f3's first decided position: the initial state with f1 and f2
        #expect(engine.proximityPairs(ofDevice: "f3").count == 4)
    }

    @Test func aFixBehindTheDecidedWatermarkIsCountedNotDecided() throws {
        // Allowed lateness 10 s: the watermark (the second-newest device time) less 10 s is decided during the run.
        let (n, engine) = try Self.run([Self.request()], [
            Self.fix("phone", 0, east: 0), Self.fix("van", 0.5, east: 500), Self.fix("phone", 100, east: 0),
            Self.fix("van", 100, east: 500),
            Self.fix("bus", 20, east: 10),  // decided up to 90 already: too late for proximity
        ], lateness: 10)
        #expect(n.isEmpty)
        #expect(engine.statistics.proximityLate == 1)
        #expect(engine.statistics.rejectedTotal == 0)
    }

    /// docs/semantics.md, "Proximity", worked example: late, out-of-order uploads decided as the watermark passes.
    @Test(arguments: [false, true])
    func theWorkedExampleOfTheSemanticsPage(customerFirst: Bool) throws {
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = 60
        let engine = TriggerEngine(configuration: configuration)
        try engine.add(RequestDecoder().decodeRequest(JSONParser.parse(
            #"{"identifier": "courier", "trigger": {"region": {"type": "proximity", "id": "door", "radius": 100, "targets": {"devices": ["customer"]}}, "dwell": 30, "repeats": true}}"#)))
        var out: [FiredNotification] = []
        let inputs = [Self.fix("courier", 0, east: 800), Self.fix("customer", 5, east: 0), Self.fix("courier", 60, east: 50)]
        for f in customerFirst ? [inputs[1], inputs[0], inputs[2]] : inputs { engine.process(f) { out.append($0) } }
        #expect(out.isEmpty && engine.pendingProximityInputs == 3)
        engine.process(Self.fix("third", 180, east: 9_000)) { out.append($0) }
        // The watermark is at 60 s (the courier), less 60 s: only the courier's first fix is decided.
        #expect(out.isEmpty && engine.pendingProximityInputs == 3)
        engine.process(Self.fix("fourth", 180, east: 9_500)) { out.append($0) }
        #expect(Self.summary(out) == ["courier entry customer @90"])
        #expect(out.first?.nearby.map { abs($0.distance - 50) < 0.01 } == true)
        #expect(out.first?.fix?.timestamp == Self.t0 + .init(seconds: 60))
    }

    @Test func requestsRefuseBadProximityFields() throws {
        func refusal(_ region: String, _ extra: String = "") -> String? {
            let json = #"{"identifier":"x","trigger":{"region":{"type":"proximity","id":"z",\#(region)}\#(extra)}}"#
            let value = try! JSONParser.parse(json)
            do throws(RequestError) { _ = try RequestDecoder().decodeRequest(value); return nil } catch { return "\(error.path): \(error.reason)" }
        }
        #expect(refusal(#""targets":{"devices":["a"]}"#) == "trigger.region.radius: required")
        #expect(refusal(#""radius":0,"targets":{"devices":["a"]}"#) == "trigger.region.radius: must be > 0 metres")
        #expect(refusal(#""radius":10"#) == "trigger.region.targets: required")
        #expect(refusal(#""radius":10,"targets":{}"#) == "trigger.region.targets.devices: required: devices (a list of ids) or group (a group name)")
        #expect(refusal(#""radius":10,"targets":{"group":"a b"}"#)?.hasPrefix("trigger.region.targets.group: a group name is") == true)
        #expect(refusal(#""radius":10,"targets":{"group":"g","devices":["a"]}"#) == "trigger.region.targets.group: give either devices or group, not both")
        #expect(refusal(#""radius":10,"targets":{"group":"g"},"maxAge":0"#) == "trigger.region.maxAge: must be > 0 seconds")
        #expect(refusal(#""radius":10,"targets":{"group":"g"},"subjects":{"group":"h"}"#, #","devices":["a"]"#)
            == "trigger.devices: give the subjects either here or as trigger.region.subjects, not both")
        #expect(refusal(#""radius":10,"targets":{"group":"g"},"center":{}"#)?.hasPrefix("trigger.region.center: unknown field") == true)
        #expect(refusal(#""radius":10,"targets":{"group":"g"}"#) == nil)
    }

    @Test func aRequestFileMayDefineGroups() throws {
        let file = #"{"groups":{"fleet":["a","b","a"]},"requests":[\#(Self.request(targets: #"{"group":"fleet"}"#))]}"#
        let decoded = try RequestDecoder().decodeRequestFile(JSONParser.parse(file))
        #expect(decoded.groups == ["fleet": ["a", "b"]])
        #expect(decoded.requests.map(\.identifier) == ["near"])
        #expect(throws: RequestError.self) { try RequestDecoder().decodeRequestFile(JSONParser.parse(#"{"groups":{"fleet":"a"},"requests":[]}"#)) }
    }
}
