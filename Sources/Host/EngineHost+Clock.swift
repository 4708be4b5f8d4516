import JSON
import Delivery
import EngineLog
import Journal
import Logging
import Sinks
import Storage
import TriggerEngine

/// The clock and the scanners' observer inputs: journaled like fixes, and held back when they change nothing
/// but the clock, so an idle service writes nothing.
extension EngineHost {
    /// Moves the clock (wall-clock mode), firing the deadlines of silent devices it passes. Journaled like any
    /// input (a restart must move the clock the same way), not waited for: nobody is answered, and the outbox
    /// takes its notifications only once durable.
    ///
    /// A tick that changed nothing but the clock is held instead: written just before the next record (a fix is
    /// evaluated at the clock it saw), or dropped when a later tick is written or a checkpoint holds the clock.
    /// An idle service then writes nothing. A crash loses at most the held tick, which is no loss: the next
    /// tick moves the clock past it and changes what it would have changed after it.
    public func advance(to time: Timestamp) throws(HostError) {
        guard failureReason == nil, time > engine.now else { return }
        let input = HostInput.clock(time)
        let outcome = state.apply(input)
        if outcome.clockOnly, outcome.fired.isEmpty {
            heldTick = time
            metrics.ticksHeld.increment()
            return
        }
        heldTick = nil
        _ = write(input, outcome)
    }

    /// Journals the held tick, if any: ahead of the record about to be written, and at an orderly shutdown
    /// (before `drainWrites`), so the journal ends at the clock the service stopped at.
    public func writeHeldTick() {
        if !heldListening.isEmpty {
            for (device, time) in heldListening.sorted(by: { $0.key < $1.key }) {
                writer.submit(position: nextPosition, input: .observerListening(device: device, at: time), fired: [])
                nextPosition += 1
            }
            heldListening.removeAll()
        }
        guard let time = heldTick else { return }
        heldTick = nil
        writer.submit(position: nextPosition, input: .clock(time), fired: [])
        nextPosition += 1
    }

    /// A scanner listening as observer `device` heard nothing up to `time`: its beacon deadlines up to then are
    /// settled (exits fire on time, not an allowed lateness later).
    ///
    /// A gateway that hears no beacon sends one of these a second. One that can change nothing is held like an
    /// idle clock tick (not journaled until the next record, `writeHeldTick`), so a quiet gateway writes nothing:
    /// on the wall clock (on event time it moves the clock), without device retention (it would move the
    /// observer's last activity, which expiry reads), for an observer with no pending dwell or beacon exit, and
    /// when it fired nothing. Such a tick then only moves the observer's own listening time, which commutes with
    /// the held clock tick and with other observers' ticks, and a later one supersedes it; a crash that loses it
    /// loses nothing, since the scanner's next tick after the restart moves the same time further.
    public func observerListening(device: String, at time: Timestamp) async throws(HostError) {
        try checkHealthy()
        let input = HostInput.observerListening(device: device, at: time)
        let configuration = engine.configuration
        let quiet = configuration.clock == .external && configuration.idleDeviceExpiry == nil
            && engine.nextDeadline(ofDevice: device) == nil
        let outcome = state.apply(input)
        if quiet, outcome.fired.isEmpty, engine.nextDeadline(ofDevice: device) == nil {
            heldListening[device] = time
            metrics.ticksHeld.increment()
            return
        }
        heldListening[device] = nil
        try await commit(input, outcome)
    }

    /// A scanner started listening as observer `device` at `time` (`serve --bluetooth`).
    public func observerStarted(device: String, at time: Timestamp) async throws(HostError) {
        try checkHealthy()
        let input = HostInput.observerStarted(device: device, at: time)
        try await commit(input, state.apply(input))
    }
}
