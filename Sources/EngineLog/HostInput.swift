import TriggerEngine

/// One accepted change to the engine, in the order the host applied it: what the journal records, and what a
/// restart (or `replay` of a journal) applies again to reach the same state and the same notifications.
public enum HostInput: Sendable, Hashable {
    /// Requests added or replaced: the JSON as accepted (one object or an array).
    case requests(json: String)
    case remove(identifiers: [String])
    case removeAll
    case fixes([LocationFix])
    case sightings([BeaconSighting])
    /// The wall clock moved (deadlines of silent devices may fire).
    case clock(Timestamp)
    /// A scanner started listening as this observer.
    case observerStarted(device: String, at: Timestamp)
    /// A scanner listening as this observer heard nothing up to `at`.
    case observerListening(device: String, at: Timestamp)
    /// A device group defined or redefined (`devices`), or removed (nil).
    case group(name: String, devices: [String]?)
}

extension HostInput {
    /// Fixes or sightings carried (0 for the other changes): the evaluation work a replay of it costs.
    public var itemCount: Int {
        switch self {
        case .fixes(let fixes): fixes.count
        case .sightings(let sightings): sightings.count
        default: 0
        }
    }
}
