import Endpoints
import Testing

/// The one parser of the addresses settings take: `HOST:PORT` in its three spellings, and `SCHEME://…` with
/// credentials, host lists, a path and options.
@Suite struct EndpointTests {
    @Test func hostAndPortInEachSpelling() throws {
        #expect(HostPort(parsing: "127.0.0.1:8080") == HostPort(host: "127.0.0.1", port: 8080))
        #expect(HostPort(parsing: "[::1]:8080") == HostPort(host: "::1", port: 8080))
        #expect(HostPort(parsing: "gw.example:0") == HostPort(host: "gw.example", port: 0))
        #expect(HostPort(parsing: "gw.example", defaultPort: 1883) == HostPort(host: "gw.example", port: 1883))
        #expect(HostPort(parsing: "[fe80::1]", defaultPort: 1883) == HostPort(host: "fe80::1", port: 1883))
        #expect(HostPort(host: "::1", port: 80).description == "[::1]:80")
        #expect(HostPort(host: "a", port: 80).description == "a:80")
    }

    @Test(arguments: ["gw.example", ":80", "a:", "a:x", "a:65536", "a:-1", "::1:80", "[::1", "[::1]x80", "[]:80", ""])
    func malformedHostAndPortIsRefused(text: String) {
        #expect(HostPort(parsing: text) == nil, "\(text)")
    }

    @Test func aPortOutsideTheSettingsRangeIsRefused() {
        #expect(HostPort(parsing: "a:0", ports: 1...65535) == nil)
        #expect(HostPort(parsing: "a:1", ports: 1...65535)?.port == 1)
    }

    @Test func aSchemeAddressWithEveryPart() throws {
        let e = try Endpoint(parsing: "MQTTS://jane%40home:p%3Ass@[::1]/fleet/{device}?ca=/etc/ca.pem&version=5",
                             schemes: ["mqtt", "mqtts"], defaultPort: { $0 == "mqtts" ? 8883 : 1883 })
        #expect(e.scheme == "mqtts")
        #expect(e.user == "jane@home")
        #expect(e.password == "p:ss")
        #expect(e.hosts == [HostPort(host: "::1", port: 8883)])
        #expect(e.path == "fleet/{device}")
        #expect(e.query.map(\.key) == ["ca", "version"])
        #expect(e.query.map(\.value) == ["/etc/ca.pem", "5"])
        #expect(e.name == "mqtts://jane@home@[::1]:8883/fleet/{device}", "the name never carries the password")
    }

    @Test func aHostListRepeatingTheSchemeOrNot() throws {
        let e = try Endpoint(parsing: "nats://a:4222, nats://b,c:4223", schemes: ["nats"], defaultPort: { _ in 4222 }, multipleHosts: true)
        #expect(e.hosts.map(\.description) == ["a:4222", "b:4222", "c:4223"])
        #expect(throws: EndpointError.self) { try Endpoint(parsing: "nats://a:1,b:2", schemes: ["nats"]) }
        #expect(throws: EndpointError.self) { try Endpoint(parsing: "kafka://a:1,,b:2", schemes: ["kafka"], multipleHosts: true) }
        #expect(throws: EndpointError.self) { try Endpoint(parsing: "kafka://a", schemes: ["kafka"], multipleHosts: true) }
    }

    @Test func errorsSayWhatIsWrongWithoutRepeatingAPassword() {
        func reason(_ text: String) -> String {
            do {
                _ = try Endpoint(parsing: text, schemes: ["mqtt"], defaultPort: { _ in 1883 })
                return "parsed"
            } catch {
                return error.reason
            }
        }
        #expect(reason("http://a/b") == "expected mqtt://…, got \"http://a/b\"")
        #expect(reason("mqtt://u:hunter2@/t") == "the host is empty")
        #expect(reason("mqtt://u:hunter2@a:99999/t").contains("1…65535"))
        #expect(!reason("mqtt://u:hunter2@a:99999/t").contains("hunter2"))
        #expect(reason("mqtt://:pw@a/t") == "the user name before '@' is empty")
        #expect(reason("mqtt://u%zz@a/t") == "the user name has an invalid percent escape")
        #expect(reason("mqtt://a/t?qos") == "option \"qos\" has no '=VALUE'")
    }
}
