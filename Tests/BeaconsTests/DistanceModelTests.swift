#if canImport(Glibc)
import Glibc
#endif
import Testing
import TriggerEngine
@testable import Beacons

/// RSSI + txPower → metres: log-distance and AltBeacon's curve-fitted model.
@Suite struct DistanceModelTests {
    @Test func logDistanceIsOneMetreAtTxPower() {
        #expect(DistanceModel.default.distance(rssi: -59, txPower: -59) == 1)
        #expect(DistanceModel.default == .logDistance(pathLossExponent: 2))
    }

    @Test func logDistanceFollowsThePathLossExponent() throws {
        let d2 = try #require(DistanceModel.logDistance(pathLossExponent: 2).distance(rssi: -79, txPower: -59))
        #expect(abs(d2 - 10) < 1e-12)
        let d3 = try #require(DistanceModel.logDistance(pathLossExponent: 3).distance(rssi: -89, txPower: -59))
        #expect(abs(d3 - 10) < 1e-12)
        let near = try #require(DistanceModel.default.distance(rssi: -53, txPower: -59))
        #expect(abs(near - 0.5011872336) < 1e-9)
    }

    @Test func unknownInputsGiveNoDistance() {
        #expect(DistanceModel.default.distance(rssi: 0, txPower: -59) == nil)
        #expect(DistanceModel.default.distance(rssi: -60, txPower: 0) == nil)
        #expect(DistanceModel.default.distance(rssi: .nan, txPower: -59) == nil)
        #expect(DistanceModel.logDistance(pathLossExponent: 0).distance(rssi: -60, txPower: -59) == nil)
        #expect(DistanceModel.altBeaconDefault.distance(rssi: 0, txPower: -59) == nil)
    }

    @Test func curveBelowOneMetreIsTheTenthPower() throws {
        let d = try #require(DistanceModel.altBeaconDefault.distance(rssi: -50, txPower: -59))
        #expect(abs(d - pow(50.0 / 59, 10)) < 1e-12)
    }

    @Test func negativeCurveValuesAreClampedToZero() {
        // XT1092's C is negative: at ratio 1 the curve gives −0.27 m.
        #expect(DistanceModel.curveFitted(.motorolaXT1092).distance(rssi: -59, txPower: -59) == 0)
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func builtInCoefficientsMatchAltBeaconsModelFile() throws {
        let models = try #require(try BeaconData.json("beacons/model-distance-calculations.json")["models"]?.arrayValue)
        let builtIn: [String: CurveFittedCoefficients] = [
            "Nexus 4": .nexus4, "Nexus 5": .nexus5, "Moto X Pro": .motoXPro, "XT1092": .motorolaXT1092,
        ]
        #expect(models.count == builtIn.count)
        for m in models {
            let name = try #require(m["model"]?.stringValue)
            let k = CurveFittedCoefficients(a: m["coefficient1"]?.doubleValue ?? .nan, b: m["coefficient2"]?.doubleValue ?? .nan,
                                            c: m["coefficient3"]?.doubleValue ?? .nan)
            #expect(builtIn[name] == k, "\(name)")
            if m["default"]?.boolValue == true { #expect(DistanceModel.altBeaconDefault == .curveFitted(k)) }
        }
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func altBeaconDistanceCases() throws {
        let doc = try BeaconData.json("beacons/distance-cases.json")
        let byName: [String: CurveFittedCoefficients] = ["Nexus 5": .nexus5, "Moto X Pro": .motoXPro, "Nexus 4": .nexus4]
        for c in doc["cases"]?.arrayValue ?? [] {
            let k = try #require(byName[c["selectedModel"]?.stringValue ?? ""])
            let d = try #require(DistanceModel.curveFitted(k).distance(rssi: c["rssi"]?.doubleValue ?? 0,
                                                                       txPower: Int(c["txPower"]?.doubleValue ?? 0)))
            let want = try #require(c["expectDistanceM"]?.doubleValue), tol = try #require(c["toleranceM"]?.doubleValue)
            #expect(abs(d - want) <= tol, "\(c["source"]?.stringValue ?? "")")
            #expect(abs(d - (c["curveValueM"]?.doubleValue ?? .nan)) < 1e-6, "\(c["source"]?.stringValue ?? "")")
        }
        // Model selection: no model given → the default (Nexus 5); an exact match picks that model.
        for s in doc["modelSelection"]?.arrayValue ?? [] where s["model"]?.isNull == true {
            #expect(s["expectSelected"]?.stringValue == "Nexus 5" && DistanceModel.altBeaconDefault == .curveFitted(.nexus5))
        }
    }
}
