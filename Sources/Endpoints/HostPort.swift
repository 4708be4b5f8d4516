/// A host and a port as every setting writes them: `HOST:PORT`, `[IPv6]:PORT`, or `HOST` alone where the setting has
/// a default port. The one parser of that form (listen addresses, inputs, brokers, cluster servers).
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `text`; nil when `parse` would throw.
    public init?(parsing text: some StringProtocol, defaultPort: Int? = nil, ports: ClosedRange<Int> = 0...65535) {
        guard let parsed = try? Self.parse(text, defaultPort: defaultPort, ports: ports) else { return nil }
        self = parsed
    }

    /// Parses `text`, saying what is wrong: an empty host, brackets that do not close, a port that is not a number
    /// in `ports`, or no port where the setting has no default (`defaultPort` nil).
    public static func parse(_ text: some StringProtocol, defaultPort: Int? = nil, ports: ClosedRange<Int> = 0...65535) throws(EndpointError) -> HostPort {
        let text = Substring(text)
        let host: Substring, portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw EndpointError(reason: "IPv6 address without ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw EndpointError(reason: "unexpected \"\(after)\" after the IPv6 address") }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            // A bare IPv6 address has several colons and needs its brackets to carry a port.
            guard text[..<colon].firstIndex(of: ":") == nil else {
                throw EndpointError(reason: "\"\(text)\": an IPv6 address with a port is written [ADDRESS]:PORT")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
            portText = nil
        }
        guard !host.isEmpty else { throw EndpointError(reason: "the host is empty") }
        let port: Int
        if let portText {
            guard let p = Int(portText), ports.contains(p) else {
                throw EndpointError(reason: "port \"\(portText)\" is not a number in \(ports.lowerBound)…\(ports.upperBound)")
            }
            port = p
        } else {
            guard let defaultPort else { throw EndpointError(reason: "\"\(text)\" names no port: expected HOST:PORT") }
            port = defaultPort
        }
        return HostPort(host: String(host), port: port)
    }

    /// `HOST:PORT`, with brackets around an IPv6 address.
    public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
}
