/// Event time's watermark (docs/semantics.md "Time"): the second-newest device time. The newest device alone, however
/// far ahead it runs, moves neither the deadlines of the others nor their idle expiry; and a device replayed after
/// another (a file grouped by device) is not behind a watermark that device set alone.
extension EngineCore {
    /// Notes that device `d`'s newest activity is now `t` (device times only grow). Keeps the two newest device
    /// times exactly, whatever the order of the calls, so a restore that notes every device gets the same values.
    @inline(__always)
    mutating func noteActivity(device d: Int32, at t: Timestamp) {
        guard configuration.clock == .eventTime else { return }
        if d == leader {
            if t > leaderTime { leaderTime = t }
        } else if t > leaderTime {
            quorumTime = leaderTime
            leader = d
            leaderTime = t
        } else if t > quorumTime {
            quorumTime = t
        }
    }

    /// Works the two newest device times out again from every device (after devices were forgotten).
    mutating func recomputeWatermark() {
        leader = -1
        leaderTime = .distantPast
        quorumTime = .distantPast
        for d in devices.indices where !devices[d].name.isEmpty { noteActivity(device: Int32(d), at: lastActivity(device: d)) }
    }

    /// The clock that fires silent devices' deadlines and forgets idle ones: wall time, or in event time the
    /// watermark (distant past until two devices have been seen).
    @inline(__always)
    var firingClock: Timestamp { configuration.clock == .eventTime ? quorumTime : now }

    /// Whether `time`, of device `name`, is further ahead than `maximumFuture` allows. Wall time: ahead of the clock.
    /// Event time: ahead of both the watermark (the newest time while only one device has been seen) and the
    /// device's own newest time, so a device may keep its own pace (a file grouped by device) but a fresh name
    /// cannot jump ahead of everyone. Never before the clock is set.
    @inline(__always)
    func isFuture(_ time: Timestamp, device name: String) -> Bool {
        guard let bound = maximumFuture, now > .distantPast else { return false }
        guard configuration.clock == .eventTime else { return time.microseconds > now.microseconds &+ bound.microseconds }
        let reference = quorumTime > .distantPast ? quorumTime : now
        guard time.microseconds > reference.microseconds &+ bound.microseconds else { return false }
        guard let d = existingDevice(name) else { return true }
        return time.microseconds > lastActivity(device: Int(d)).microseconds &+ bound.microseconds
    }
}
