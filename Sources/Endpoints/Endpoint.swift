import JSON

/// An address with a scheme, as the settings write them: `SCHEME://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]…][/PATH][?K=V&…]`.
/// The one parser of that form (MQTT sinks and inputs, NATS and Kafka journals); what each scheme's path and
/// options mean is its user's business. User and password are percent-decoded; the path and the query are kept as
/// written (an MQTT topic template is taken raw, a filter decoded: `percentDecoded`).
public struct Endpoint: Sendable, Hashable {
    /// Lower case, without `://`.
    public var scheme: String
    public var user: String?
    public var password: String?
    /// One or more (`nats://h1:4222,h2:4222`); each with the default port when it names none.
    public var hosts: [HostPort]
    /// As written, without the leading `/`; nil when there was no `/`.
    public var path: String?
    /// The raw `?…` part, split at `&`, in order; empty pairs dropped.
    public var query: [(key: String, value: String)]

    /// - Parameters:
    ///   - schemes: the schemes accepted (lower case).
    ///   - defaultPort: the port of a host that names none, by scheme; a scheme without one requires the port.
    ///   - multipleHosts: whether a comma-separated host list is allowed.
    public init(parsing text: String, schemes: Set<String>, defaultPort: (String) -> Int? = { _ in nil },
                multipleHosts: Bool = false) throws(EndpointError) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            throw EndpointError(reason: "expected \(Self.expected(schemes)), got \"\(text.prefix(24))\"")
        }
        let scheme = text[..<colon].lowercased()
        guard schemes.contains(scheme) else {
            throw EndpointError(reason: "expected \(Self.expected(schemes)), got \"\(text.prefix(24))\"")
        }
        self.scheme = scheme
        var rest = text[colon...].dropFirst(3)
        if multipleHosts {
            // A listed host may repeat the scheme (`nats://h1:4222, nats://h2:4222`): dropped before the path is found.
            rest = Substring(String(rest.filter { $0 != " " }).replacing(",\(scheme)://", with: ","))
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var remainder = rest[authorityEnd...]

        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                user = try Self.percentDecoded(userinfo[..<colon], what: "the user name")
                password = try Self.percentDecoded(userinfo[userinfo.index(after: colon)...], what: "the password")
            } else {
                user = try Self.percentDecoded(userinfo, what: "the user name")
            }
            guard user?.isEmpty == false else { throw EndpointError(reason: "the user name before '@' is empty") }
        }

        let parts = authority.split(separator: ",", omittingEmptySubsequences: false)
        guard multipleHosts || parts.count == 1 else { throw EndpointError(reason: "one host expected, got \"\(authority)\"") }
        hosts = []
        for part in parts {
            hosts.append(try HostPort.parse(part, defaultPort: defaultPort(scheme), ports: 1...65535))
        }

        if remainder.hasPrefix("/") {
            remainder = remainder.dropFirst()
            let p = remainder.prefix { $0 != "?" }
            path = String(p)
            remainder = remainder.dropFirst(p.count)
        }
        query = []
        if remainder.hasPrefix("?") {
            for pair in remainder.dropFirst().split(separator: "&", omittingEmptySubsequences: true) {
                guard let eq = pair.firstIndex(of: "=") else { throw EndpointError(reason: "option \"\(pair)\" has no '=VALUE'") }
                query.append((String(pair[..<eq]), String(pair[pair.index(after: eq)...])))
            }
        }
    }

    /// The first host (most schemes take one).
    public var host: HostPort { hosts[0] }

    /// The raw query's keys, for checks such as "was this option given".
    public var optionKeys: [String] { query.map(\.key) }

    /// `SCHEME://[USER@]HOST:PORT[,…]/PATH`: never the password, not the options.
    public var name: String {
        let user = user.map { "\($0)@" } ?? ""
        let path = path.map { "/\($0)" } ?? ""
        return "\(scheme)://\(user)\(hosts.map(\.description).joined(separator: ","))\(path)"
    }

    public static func == (a: Endpoint, b: Endpoint) -> Bool {
        a.scheme == b.scheme && a.user == b.user && a.password == b.password && a.hosts == b.hosts && a.path == b.path
            && a.query.map(\.key) == b.query.map(\.key) && a.query.map(\.value) == b.query.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(hosts)
        hasher.combine(path)
    }

    /// `%XX` decoded as UTF-8 (JSON's `PercentDecoding`, as the API's path parameters are).
    public static func percentDecoded(_ text: some StringProtocol, what: String) throws(EndpointError) -> String {
        do {
            return try PercentDecoding.decode(Substring(text))
        } catch {
            switch error {
            case .malformedEscape: throw EndpointError(reason: "\(what) has an invalid percent escape")
            case .notUTF8: throw EndpointError(reason: "\(what) is not UTF-8 once decoded")
            }
        }
    }

    private static func expected(_ schemes: Set<String>) -> String {
        schemes.sorted().map { "\($0)://…" }.joined(separator: " or ")
    }
}

/// Why an address cannot be used.
public struct EndpointError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
