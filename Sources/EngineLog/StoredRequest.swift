import TriggerEngine

/// A pending request as stored: its JSON as accepted and the engine's persistent numbers for it.
public struct StoredRequest: Sendable, Hashable {
    public var identifier: String
    public var json: String
    public var state: TriggerEngine.RequestState

    public init(identifier: String, json: String, state: TriggerEngine.RequestState) {
        self.identifier = identifier
        self.json = json
        self.state = state
    }
}
