extension DeviceExplanation {
    /// One line per input (replay's `--explain`): time, what the input was, then each request's decision.
    public var lines: [String] {
        var out: [String] = []
        if !recorded { out.append("\(device): no explain history is kept for this device") }
        if omitted > 0 { out.append("\(device): \(omitted) older entries are no longer kept") }
        for input in inputs { out.append(input.line(device: device)) }
        if let delivered {
            out.append("\(device): request \(delivered.request.identifier) fired once (repeats: false) at \(delivered.deliveredAt) for \(delivered.device) and left the pending set")
        }
        return out
    }
}

extension ExplainedInput {
    func line(device: String) -> String {
        var head = "\(time) \(device) "
        switch kind {
        case .fix:
            head += "fix \(latitude ?? .nan),\(longitude ?? .nan)"
            if let horizontalAccuracy { head += " ±\(Decision.metres(horizontalAccuracy))" }
        case .sighting:
            head += "sighting"
            if let rssi { head += " rssi \(Int(rssi))" }
        case .clock:
            head += "clock"
        }
        if let refused { return head + ": refused (\(refused.rawValue)): \(refused.description)" }
        if decisions.isEmpty { return head + ": no request near" }
        return head + ": " + decisions.map { "\($0.request) \($0.reason)" }.joined(separator: " | ")
    }
}
