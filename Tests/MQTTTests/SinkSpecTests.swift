import MQTT
import Testing

/// `mqtt://[user[:pass]@]HOST:PORT/TOPIC-TEMPLATE[?options]` and `mqtts://`.
@Suite struct SinkSpecTests {
    @Test func plainSpec() throws {
        let s = try MQTTSinkSpec(parsing: "mqtt://127.0.0.1:1883/geotrigger/{device}/{event}")
        #expect(s.options.host == "127.0.0.1")
        #expect(s.options.port == 1883)
        #expect(s.options.tls == nil)
        #expect(s.options.username == nil)
        #expect(s.options.protocolVersion == .v311)
        #expect(s.topic.text == "geotrigger/{device}/{event}")
    }

    @Test func credentialsOptionsAndDefaults() throws {
        let s = try MQTTSinkSpec(parsing: "mqtt://sink:p%40ss%3Aw@broker.example/t/{device}?clientId=gt-1&cleanSession=false&version=5&keepalive=20&timeout=2.5")
        #expect(s.options.host == "broker.example")
        #expect(s.options.port == 1883)
        #expect(s.options.username == "sink")
        #expect(s.options.password == "p@ss:w")
        #expect(s.options.clientID == "gt-1")
        #expect(s.options.cleanSession == false)
        #expect(s.options.protocolVersion == .v5)
        #expect(s.options.keepAlive == .seconds(20))
        #expect(s.options.publishTimeout == .milliseconds(2500))
    }

    @Test func tlsSpec() throws {
        let s = try MQTTSinkSpec(parsing: "mqtts://[::1]/g/{event}?ca=/etc/gt/ca.pem&cert=/c.pem&key=/k.pem&insecure=true")
        #expect(s.options.host == "::1")
        #expect(s.options.port == 8883)
        #expect(s.options.tls == MQTTClient.TLS(caFile: "/etc/gt/ca.pem", certificateFile: "/c.pem", keyFile: "/k.pem", insecure: true))
        let system = try MQTTSinkSpec(parsing: "mqtts://broker:8884/g")
        #expect(system.options.tls?.caDirectory == "/etc/ssl/certs")
        #expect(system.options.port == 8884)
    }

    @Test(arguments: [
        ("http://h:1/t", "expected mqtt://HOST:PORT/TOPIC or mqtts://…, got \"http://h:1/t…\""),
        ("mqtt://h:1883", "no topic template: expected mqtt://HOST:PORT/TOPIC-TEMPLATE"),
        ("mqtt://:1883/t", "the host is empty"),
        ("mqtt://h:99999/t", "port \"99999\" is not a number in 1…65535"),
        ("mqtt://h:x/t", "port \"x\" is not a number in 1…65535"),
        ("mqtt://h/t/{nope}", "topic template \"t/{nope}\", character 3: unknown placeholder {nope}; known: {device}, {event}, {identifier}, {regionId}"),
        ("mqtt://h/t/#", "topic template \"t/#\", character 3: MQTT wildcard '#' is not allowed in a topic to publish to"),
        ("mqtt://h/", "the topic template is empty"),
        ("mqtt://h/t?ca=/x", "option ca needs mqtts://"),
        ("mqtt://h/t?qos=2", "unknown option qos; known: clientId, cleanSession, version, keepalive, timeout, ca, capath, cert, key, insecure"),
        ("mqtt://h/t?version=4.0", "option version=4.0: expected 3.1.1 or 5"),
        ("mqtt://h/t?keepalive=-1", "option keepalive=-1 is not a positive number of seconds"),
        ("mqtt://h/t?timeout=1&timeout=2", "option timeout is given twice"),
        ("mqtt://h/t?cleanSession=false", "cleanSession=false needs a clientId"),
        ("mqtt://u:p%zz@h/t", "the password has an invalid percent escape"),
        ("mqtt://:secret@h/t", "the user name before '@' is empty"),
        ("mqtt://[::1/t", "IPv6 address without ']'"),
    ])
    func invalidSpecsAreRefusedPrecisely(spec: String, reason: String) {
        #expect(throws: MQTTSinkSpecError(reason: reason)) { try MQTTSinkSpec(parsing: spec) }
    }

    @Test func errorsNeverShowThePassword() {
        do {
            _ = try MQTTSinkSpec(parsing: "mqtt://user:hunter2@h:0/t")
            Issue.record("port 0 accepted")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }
}
