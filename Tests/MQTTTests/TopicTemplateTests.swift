import MQTT
import Testing

/// `geotrigger/{device}/{event}`: what a template may contain and what a notification turns it into.
@Suite struct TopicTemplateTests {
    let fields = MQTTTopicFields(device: "truck-12", event: "entry", identifier: "depot-north-arrivals", regionId: "depot-north")

    @Test func placeholdersAreFilledIn() throws {
        let t = try MQTTTopicTemplate("geotrigger/{device}/{event}")
        #expect(t.render(fields) == "geotrigger/truck-12/entry")
        let all = try MQTTTopicTemplate("r/{regionId}/{identifier}/{device}-{event}")
        #expect(all.render(fields) == "r/depot-north/depot-north-arrivals/truck-12-entry")
        #expect(all.fields == [.regionId, .identifier, .device, .event])
        #expect(try MQTTTopicTemplate("fixed/topic").render(fields) == "fixed/topic")
    }

    @Test func valuesStayOneLevelAndDistinct() throws {
        let t = try MQTTTopicTemplate("{device}/{event}")
        func render(_ device: String) -> String {
            t.render(MQTTTopicFields(device: device, event: "exit", identifier: "i", regionId: "r"))
        }
        #expect(render("a/b") == "a%2Fb/exit")
        #expect(render("a+b#c") == "a%2Bb%23c/exit")
        #expect(render("100%") == "100%25/exit")
        #expect(render("a_b") != render("a/b"))
        #expect(render("$SYS") == "%24SYS/exit", "a leading $ would make a broker-reserved topic")
        #expect(render("x$") == "x$/exit")
        #expect(render("nul\u{0}tab\t") == "nul%00tab%09/exit")
        #expect(render("") == "%00/exit")
        #expect(render("Lkw-Größe") == "Lkw-Größe/exit")
    }

    @Test(arguments: [
        ("", 0, "the topic template is empty"),
        ("geotrigger/{devices}", 12, "unknown placeholder {devices}; known: {device}, {event}, {identifier}, {regionId}"),
        ("geotrigger/{region.id}", 12, "unknown placeholder {region.id}; known: {device}, {event}, {identifier}, {regionId}"),
        ("geotrigger/{device", 12, "placeholder {device is not closed"),
        ("geotrigger/device}", 18, "'}' without a matching '{'"),
        ("a/{de{vice}", 6, "'{' inside the placeholder opened at character 3"),
        ("geotrigger/+/entry", 12, "MQTT wildcard '+' is not allowed in a topic to publish to"),
        ("geotrigger/#", 12, "MQTT wildcard '#' is not allowed in a topic to publish to"),
        ("$SYS/{device}", 1, "topics starting with '$' are reserved for the broker ($SYS…)"),
        ("a\u{0}b", 2, "control character U+0 is not allowed in a topic"),
    ])
    func invalidTemplatesAreRefusedPrecisely(template: String, position: Int, reason: String) {
        #expect(throws: MQTTTopicTemplateError(template: template, position: position, reason: reason)) {
            try MQTTTopicTemplate(template)
        }
    }

    @Test func fieldsComeFromTheNotificationJSON() throws {
        let json = """
            {"identifier":"depot-north-arrivals","deliveryId":"depot-north-arrivals/truck-12/17","content":{"title":"t"},
             "trigger":{"type":"location","event":"exit","repeats":true,"region":{"type":"circle","id":"depot-north","name":"Depot North"}},
             "device":"truck/12","firedAt":"2026-11-20T08:15:02Z"}
            """
        let f = try MQTTTopicFields(notificationJSON: json)
        #expect(f == MQTTTopicFields(device: "truck/12", event: "exit", identifier: "depot-north-arrivals", regionId: "depot-north"))
        #expect(try MQTTTopicTemplate("geotrigger/{device}/{event}").render(f) == "geotrigger/truck%2F12/exit")
        #expect(throws: MQTTTopicTemplateError(template: "", position: 0, reason: "the notification has no string trigger.event")) {
            try MQTTTopicFields(notificationJSON: #"{"identifier":"a","device":"d","trigger":{"region":{"id":"r"}}}"#)
        }
        #expect(throws: MQTTTopicTemplateError.self) { try MQTTTopicFields(notificationJSON: "{not json") }
    }
}
