extension Decision {
    /// The decision as one sentence: where the input stood against the region, then what that did and why.
    func sentence(input: ExplainedInput, request: NotificationRequest?) -> String {
        let t = request?.trigger
        var parts: [String] = []
        switch standing {
        case .inside, .outside, .uncertain:
            var s = standing.rawValue
            if let distanceToEdge {
                s += distanceToEdge >= 0 ? ": \(Self.metres(distanceToEdge)) inside the edge" : ": \(Self.metres(-distanceToEdge)) outside the edge"
            }
            if let band {
                let accuracy = input.horizontalAccuracy ?? 0, hysteresis = t?.hysteresis ?? 0
                let within = standing == .uncertain ? "within" : "beyond"
                s += ", \(within) the uncertainty band of \(Self.metres(band)) (accuracy \(Self.metres(accuracy)) + hysteresis \(Self.metres(hysteresis)))"
                if standing == .uncertain { s += ": the previous state holds" }
            }
            parts.append(s)
        case .accuracyTooLow:
            let accuracy = input.horizontalAccuracy ?? 0
            parts.append("ignored: accuracy \(Self.metres(accuracy)) is worse than the request's maximumAccuracy \(Self.metres(t?.maximumAccuracy ?? 0))")
        case .outOfScope:
            parts.append("ignored: the request applies only to other devices")
        case .notApplicable:
            parts.append(input.kind == .fix ? "not applicable: a beacon region is decided by sightings, not fixes" : "not applicable")
        case .removed:
            if request == nil, !delivered { parts.append("the request has since been removed or replaced") }
        }
        switch outcome {
        case .unchanged:
            switch standing {
            case .inside: parts.append("no change: already inside, so nothing fires")
            case .outside: parts.append("no change: already outside")
            default: break
            }
        case .entered:
            parts.append(t?.notifyOnEntry == false ? "entered (notifyOnEntry is false: no notification)" : "entered")
        case .initiallyInside:
            parts.append("inside at the device's first evaluated fix: the initial state, which notifies only with initialTrigger")
        case .dwellStarted:
            parts.append("entered: the entry notifies at \(dwellUntil.map { "\($0)" } ?? "the dwell's end") if the device stays (dwell \(Self.seconds(t?.dwell ?? 0)))")
        case .dwellCancelled:
            parts.append("left before the dwell time: the entry is cancelled, with no exit to report")
        case .dwellCompleted:
            parts.append("stayed for the dwell time: the entry notifies")
        case .exited:
            parts.append(t?.notifyOnExit == false ? "exited (notifyOnExit is false: no notification)" : "exited")
        }
        if fired { parts.append("notified") }
        if let suppressedUntil {
            parts.append("notification held back by minimumInterval \(Self.seconds(t?.minimumInterval ?? 0)) until \(suppressedUntil)")
        }
        if delivered { parts.append("a repeats: false request: it fired once and left the pending set") }
        return parts.joined(separator: "; ")
    }

    static func metres(_ m: Double) -> String {
        guard m.isFinite else { return "\(m) m" }
        // Beyond any distance on Earth (a fix may claim an accuracy of 1e38 m): no whole number of km fits an Int.
        if abs(m) >= 1e15 { return "\(m / 1000) km" }
        if abs(m) >= 10_000 { return "\(Int((m / 1000).rounded())) km" }
        if abs(m) >= 1000 { return "\(Double(Int((m / 100).rounded())) / 10) km" }
        if abs(m) >= 10 || m == m.rounded() { return "\(Int(m.rounded())) m" }
        return "\(Double(Int((m * 10).rounded())) / 10) m"
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() && abs(s) < 1e15 ? "\(Int(s)) s" : "\(s) s"
    }
}
