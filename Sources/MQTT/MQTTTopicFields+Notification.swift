import JSON

extension MQTTTopicFields {
    /// The values of a SPEC §4 notification JSON object: `device`, `trigger.event`, `identifier`, `trigger.region.id`.
    public init(notificationJSON json: String) throws(MQTTTopicTemplateError) {
        func fail(_ reason: String) -> MQTTTopicTemplateError {
            MQTTTopicTemplateError(template: "", position: 0, reason: reason)
        }
        let value: JSONValue
        do { value = try JSONParser.parse(json) } catch { throw fail("the notification is not JSON: \(error)") }
        func string(_ path: [String]) throws(MQTTTopicTemplateError) -> String {
            var v: JSONValue? = value
            for key in path { v = v?[key] }
            guard let s = v?.stringValue else { throw fail("the notification has no string \(path.joined(separator: "."))") }
            return s
        }
        self.init(device: try string(["device"]), event: try string(["trigger", "event"]),
                  identifier: try string(["identifier"]), regionId: try string(["trigger", "region", "id"]))
    }
}
