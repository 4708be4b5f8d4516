/// Why a notification request was refused: the request, the field (a dotted path) and the reason.
public struct RequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var identifier: String?
    public var path: String
    public var reason: String

    public init(identifier: String? = nil, path: String, reason: String) {
        self.identifier = identifier
        self.path = path
        self.reason = reason
    }

    public var description: String {
        let who = identifier.map { "request \"\($0)\"" } ?? "request"
        return path.isEmpty ? "\(who): \(reason)" : "\(who), \(path): \(reason)"
    }
}
