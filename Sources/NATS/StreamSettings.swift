/// What a JetStream stream is created (or updated) with.
public struct StreamSettings: Sendable, Equatable {
    public var name: String
    public var subjects: [String]
    /// Copies kept by the cluster (1, 3 or 5); at most the number of servers.
    public var replicas: Int
    /// Messages with the same `Nats-Msg-Id` published within this window are stored once.
    public var duplicateWindow: Duration
    /// Messages kept per subject (0: no limit).
    public var maximumPerSubject: Int64
    /// Largest message accepted (0: the server's limit).
    public var maximumMessageBytes: Int32

    public init(name: String, subjects: [String], replicas: Int, duplicateWindow: Duration = .seconds(120),
                maximumPerSubject: Int64 = 0, maximumMessageBytes: Int32 = 0) {
        self.name = name
        self.subjects = subjects
        self.replicas = replicas
        self.duplicateWindow = duplicateWindow
        self.maximumPerSubject = maximumPerSubject
        self.maximumMessageBytes = maximumMessageBytes
    }
}
