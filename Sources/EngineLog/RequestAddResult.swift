/// Whether an added request was new or replaced one with the same identifier.
public enum RequestAddResult: Sendable, Equatable { case added, replaced }
