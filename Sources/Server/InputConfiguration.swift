/// A stream of NDJSON records read besides the HTTP API: `[fixes:|sightings:]stdin` or
/// `[fixes:|sightings:]tcp:HOST:PORT`. Records are fixes unless the prefix says sightings.
public enum InputConfiguration: Sendable, Hashable {
    public enum Records: String, Sendable, CaseIterable { case fixes, sightings }

    case stdin(Records)
    case tcp(host: String, port: Int, Records)

    /// Parses the command-line form; a failure says what is wrong.
    public static func parse(_ argument: String) -> Result<InputConfiguration, ServerConfigurationError> {
        var rest = Substring(argument)
        var records = Records.fixes
        for r in Records.allCases where rest.hasPrefix(r.rawValue + ":") {
            records = r
            rest = rest.dropFirst(r.rawValue.count + 1)
        }
        if rest == "stdin" { return .success(.stdin(records)) }
        if rest.hasPrefix("tcp:") {
            guard let (host, port) = splitHostPort(String(rest.dropFirst(4))) else {
                return .failure(.init(reason: "input \(argument): expected tcp:HOST:PORT with a port 0…65535"))
            }
            return .success(.tcp(host: host, port: port, records))
        }
        return .failure(.init(reason: "unknown input \(argument): use [fixes:|sightings:]stdin or [fixes:|sightings:]tcp:HOST:PORT"))
    }

    public var records: Records {
        switch self {
        case .stdin(let r), .tcp(_, _, let r): r
        }
    }

    /// How logs name it.
    public var name: String {
        switch self {
        case .stdin(let r): "\(r.rawValue):stdin"
        case .tcp(let host, let port, let r): "\(r.rawValue):tcp:\(host):\(port)"
        }
    }
}

/// `HOST:PORT` or `[IPv6]:PORT`.
public func splitHostPort(_ s: String) -> (String, Int)? {
    guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), (0...65535).contains(port) else {
        return nil
    }
    var host = String(s[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return host.isEmpty ? nil : (host, port)
}
