/// A valid OwnTracks message that is not a location (transition, waypoint, lwt, cmd, card, …).
public struct OwnTracksIgnoredMessage: Sendable, Hashable {
    public var type: String
    /// The line the message's document starts on.
    public var line: Int

    public init(type: String, line: Int) {
        self.type = type
        self.line = line
    }
}
