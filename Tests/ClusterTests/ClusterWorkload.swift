import Foundation
import TestSupport

/// A fleet for the scale-out tests: circles on a grid and devices random-walking through them, one fix per device
/// per step, so every step crosses circle edges somewhere.
struct ClusterWorkload {
    let devices: Int
    let steps: Int
    let start = 1_780_000_000.0
    /// `[step][device]` → (latitude, longitude).
    let positions: [[(Double, Double)]]

    init(devices: Int, steps: Int, seed: UInt64) {
        self.devices = devices
        self.steps = steps
        var rng = SplitMix(seed: seed)
        var current = (0..<devices).map { _ in (rng.double(51.995, 52.035), rng.double(12.99, 13.07)) }
        var all: [[(Double, Double)]] = []
        for _ in 0..<steps {
            all.append(current)
            current = current.map { p in
                (min(52.04, max(51.99, p.0 + rng.double(-0.004, 0.004))), min(13.08, max(12.98, p.1 + rng.double(-0.006, 0.006))))
            }
        }
        positions = all
    }

    /// 20 circles of 400 m on a 4 × 5 grid, and with `withOnce` a `repeats: false` circle.
    var requestsJSON: String { requests(withOnce: false) }

    func requests(withOnce: Bool) -> String {
        var items: [String] = []
        for i in 0..<4 {
            for j in 0..<5 {
                let id = "c\(i)-\(j)"
                items.append(#"{"identifier":"\#(id)","content":{"title":"\#(id)","body":"{device} at \#(id)"},"trigger":{"region":{"type":"circle","id":"\#(id)","center":{"latitude":\#(52.0 + Double(i) * 0.01),"longitude":\#(13.0 + Double(j) * 0.015)},"radius":400},"repeats":true}}"#)
            }
        }
        if withOnce {
            // Fires once in the whole deployment, whichever partition's device gets there first.
            items.append(#"{"identifier":"once","content":{"title":"first arrival"},"trigger":{"region":{"type":"circle","id":"once","center":{"latitude":52.015,"longitude":13.03},"radius":300},"repeats":false}}"#)
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// A fix's key as the input log check writes it: `veh-<device>@<epoch milliseconds>`.
    func key(step: Int, device: Int) -> String {
        "veh-\(device)@\(Int64((start * 1000).rounded()) + Int64(step) * 60_000 + Int64(device % 1000))"
    }

    func line(step: Int, device: Int) -> String {
        let (lat, lon) = positions[step][device]
        let t = start + Double(step) * 60 + Double(device % 1000) / 1000
        return #"{"device":"veh-\#(device)","timestamp":\#(String(format: "%.3f", t)),"latitude":\#(String(format: "%.6f", lat)),"longitude":\#(String(format: "%.6f", lon)),"horizontalAccuracy":5}"#
    }

    /// Every fix as one NDJSON text, in the order the tests send them (step by step).
    var ndjson: String {
        var out = ""
        for s in 0..<steps { for d in 0..<devices { out += line(step: s, device: d) + "\n" } }
        return out
    }
}
