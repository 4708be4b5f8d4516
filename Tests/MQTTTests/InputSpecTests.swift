import MQTT
import Testing

/// `mqtt://HOST:PORT/TOPIC-FILTER` for `serve --input`: wildcards allowed, a persistent session by default.
@Suite struct InputSpecTests {
    @Test func aFilterWithWildcardsAndAPersistentSessionByDefault() throws {
        let spec = try MQTTInputSpec(parsing: "mqtt://user:secret@broker.example.net:1884/owntracks/+/#")
        #expect(spec.filter == "owntracks/+/#")
        #expect(spec.options.host == "broker.example.net" && spec.options.port == 1884 && spec.options.password == "secret")
        #expect(!spec.options.cleanSession)
        #expect(spec.options.clientID?.hasPrefix("geotrigger-input-") == true)
        #expect(spec.name == "mqtt://user@broker.example.net:1884/owntracks/+/#", "no password in the name")
        let same = try MQTTInputSpec(parsing: "mqtt://broker.example.net:1884/owntracks/+/#")
        #expect(same.options.clientID == spec.options.clientID, "the same broker and filter: the same session on every start")
        let other = try MQTTInputSpec(parsing: "mqtt://broker.example.net:1884/fleet/#")
        #expect(other.options.clientID != spec.options.clientID)
        let chosen = try MQTTInputSpec(parsing: "mqtts://broker:8883/fleet/%23?clientId=gt-1&ca=/tmp/ca.pem")
        #expect(chosen.options.clientID == "gt-1" && chosen.options.tls?.caFile == "/tmp/ca.pem" && chosen.filter == "fleet/#")
    }

    @Test func notAFilterIsRefused() {
        for bad in ["mqtt://broker:1883/", "mqtt://broker:1883/a/#/b", "mqtt://broker:1883/a+b", "tcp://broker:1883/a",
                    "mqtt://broker:1883/a?cleanSession=false"] {
            #expect(throws: MQTTSinkSpecError.self, "\(bad)") { try MQTTInputSpec(parsing: bad) }
        }
    }
}
