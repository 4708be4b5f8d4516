import JSON
import Foundation
import TriggerEngine

/// Compares emitted notifications with a golden NDJSON file, as JSON values (member order and number spelling do
/// not matter), and explains the differences readably.
enum GoldenComparison {
    struct Result {
        var matches: Bool
        var report: String
    }

    /// `golden`: the file's bytes, read before the replay (so a missing file is said at once, with the system's reason).
    static func compare(actual: [String], golden: [UInt8], goldenPath: String) -> Result {
        let expected = String(decoding: golden, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        func parse(_ line: String, _ what: String, _ k: Int) -> JSONValue? {
            try? JSONParser.parse(line)
        }
        var report = ""
        var differences = 0
        let n = max(expected.count, actual.count)
        for k in 0..<n {
            let e = k < expected.count ? expected[k] : nil
            let a = k < actual.count ? actual[k] : nil
            if let e, let a, let ev = parse(e, "expected", k), let av = parse(a, "actual", k), ev == av { continue }
            if let e, let a, e == a { continue }
            differences += 1
            if differences <= 10 {
                report += "notification \(k + 1):\n"
                report += "  expected: \(e.map { describe($0) } ?? "(nothing: the replay emitted more)")\n"
                report += "  actual:   \(a.map { describe($0) } ?? "(nothing: the replay emitted fewer)")\n"
                if let e, let a, let ev = try? JSONParser.parse(e), let av = try? JSONParser.parse(a) {
                    for path in differingPaths(ev, av, prefix: "").prefix(5) { report += "  differs at \(path)\n" }
                }
            }
        }
        if differences == 0 || sameSequencePerDevice(expected, actual) { return Result(matches: true, report: "") }
        var header = "expectation \(goldenPath) NOT met: \(differences) of \(counted(n, "notification")) "
            + (differences == 1 ? "differs" : "differ")
        header += " (expected \(expected.count), got \(actual.count))\n"
        if differences > 10 { report += "… and \(differences - 10) more\n" }
        return Result(matches: false, report: header + report)
    }

    /// Notifications are ordered per device (SPEC §4); across devices the order follows how their inputs arrived
    /// (a file grouped by device, several files), so a golden file matches when each device's sequence does.
    static func sameSequencePerDevice(_ expected: [String], _ actual: [String]) -> Bool {
        guard expected.count == actual.count else { return false }
        func grouped(_ lines: [String]) -> [String: [JSONValue]]? {
            var out: [String: [JSONValue]] = [:]
            for line in lines {
                guard let v = try? JSONParser.parse(line), let device = v["device"]?.stringValue else { return nil }
                out[device, default: []].append(v)
            }
            return out
        }
        guard let e = grouped(expected), let a = grouped(actual) else { return false }
        return e == a
    }

    /// `event identifier device @ time` for a notification line, or the raw line when it is not one.
    static func describe(_ line: String) -> String {
        guard let v = try? JSONParser.parse(line), let id = v["identifier"]?.stringValue else { return line }
        let event = v["trigger"]?["event"]?.stringValue ?? "?"
        let device = v["device"]?.stringValue ?? "?"
        let at = v["firedAt"]?.stringValue ?? "?"
        return "\(event) \(id) \(device) @ \(at)"
    }

    static func differingPaths(_ a: JSONValue, _ b: JSONValue, prefix: String) -> [String] {
        switch (a, b) {
        case let (.object(x), .object(y)):
            var out: [String] = []
            let keys = Array(Set(x.map(\.key)).union(y.map(\.key))).sorted()
            for k in keys {
                let xv = x.first { $0.key == k }?.value, yv = y.first { $0.key == k }?.value
                let path = prefix.isEmpty ? k : "\(prefix).\(k)"
                switch (xv, yv) {
                case let (xv?, yv?): if xv != yv { out += differingPaths(xv, yv, prefix: path) }
                default: out.append(path)
                }
            }
            return out
        default:
            return a == b ? [] : [prefix.isEmpty ? "(whole line)" : prefix]
        }
    }
}
