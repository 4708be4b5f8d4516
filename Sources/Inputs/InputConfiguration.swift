import Endpoints
import MQTT
/// A stream of records read besides the HTTP API: NDJSON from `[fixes:|sightings:]stdin` or a TCP listener
/// `[fixes:|sightings:]tcp:HOST:PORT` (fixes unless the prefix says sightings), or the fixes of a gpsd daemon,
/// `gpsd:HOST:PORT[?device=NAME]` (a client of gpsd's JSON protocol).
public enum InputConfiguration: Sendable, Hashable {
    public enum Records: String, Sendable, CaseIterable { case fixes, sightings }

    case stdin(Records)
    case tcp(host: String, port: Int, Records)
    /// A gpsd daemon's TPV reports; `device` names the device of every fix (else the report's receiver path).
    case gpsd(host: String, port: Int, device: String?)
    /// An MQTT subscription: OwnTracks messages (the device from the topic) or NDJSON fixes.
    case mqtt(MQTTInputSpec)

    /// Parses the command-line form; a failure says what is wrong.
    public static func parse(_ argument: String) -> Result<InputConfiguration, EndpointError> {
        var rest = Substring(argument)
        var records = Records.fixes
        for r in Records.allCases where rest.hasPrefix(r.rawValue + ":") {
            records = r
            rest = rest.dropFirst(r.rawValue.count + 1)
        }
        if rest == "stdin" { return .success(.stdin(records)) }
        if rest.lowercased().hasPrefix("mqtt://") || rest.lowercased().hasPrefix("mqtts://") {
            guard records == .fixes else { return .failure(.init(reason: "input \(argument): an MQTT input gives fixes")) }
            do { return .success(.mqtt(try MQTTInputSpec(parsing: String(rest)))) } catch {
                return .failure(.init(reason: "input: \(error.reason)"))
            }
        }
        if rest.hasPrefix("gpsd:") {
            var address = String(rest.dropFirst(5))
            var device: String?
            if let q = address.firstIndex(of: "?") {
                let setting = address[address.index(after: q)...]
                guard setting.hasPrefix("device="), setting.count > 7 else {
                    return .failure(.init(reason: "input \(argument): the only gpsd setting is ?device=NAME"))
                }
                device = String(setting.dropFirst(7))
                address = String(address[..<q])
            }
            guard records == .fixes, let hp = HostPort(parsing: address, ports: 1...65535) else {
                return .failure(.init(reason: "input \(argument): expected gpsd:HOST:PORT[?device=NAME] with a port 1…65535 (gpsd gives fixes)"))
            }
            return .success(.gpsd(host: hp.host, port: hp.port, device: device))
        }
        if rest.hasPrefix("tcp:") {
            guard let hp = HostPort(parsing: rest.dropFirst(4)) else {
                return .failure(.init(reason: "input \(argument): expected tcp:HOST:PORT with a port 0…65535"))
            }
            return .success(.tcp(host: hp.host, port: hp.port, records))
        }
        return .failure(.init(reason: "unknown input \(argument): use [fixes:|sightings:]stdin, [fixes:|sightings:]tcp:HOST:PORT, gpsd:HOST:PORT or mqtt://HOST:PORT/TOPIC-FILTER"))
    }

    public var records: Records {
        switch self {
        case .stdin(let r), .tcp(_, _, let r): r
        case .gpsd, .mqtt: .fixes
        }
    }

    /// How logs name it.
    public var name: String {
        switch self {
        case .stdin(let r): "\(r.rawValue):stdin"
        case .tcp(let host, let port, let r): "\(r.rawValue):tcp:\(HostPort(host: host, port: port))"
        case .gpsd(let host, let port, _): "gpsd:\(HostPort(host: host, port: port))"
        case .mqtt(let spec): spec.name
        }
    }
}
