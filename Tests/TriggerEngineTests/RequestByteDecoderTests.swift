import JSON
import Testing
import TestSupport
import TriggerEngine

/// The byte decoder (`RequestDecoder.decodeRequests(bytes:)`) against the tree (`JSONParser` then `convertGeoJSON`
/// and `requests(of:)`, as the region file loader read files before): where the byte decoder answers, the tree gives
/// the same requests; where it does not, the loader reads the document through the tree, so the error is the tree's.
@Suite struct RequestByteDecoderTests {
    /// A document's requests or its error, as the tree reads it.
    enum Outcome: Equatable {
        case requests([NotificationRequest])
        case notJSON(String)
        case refused(RequestError)
    }

    static func tree(_ bytes: [UInt8]) -> Outcome {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { return .notJSON(error.description) }
        do throws(RequestError) {
            let decoder = RequestDecoder()
            return .requests(try decoder.requests(of: try decoder.convertGeoJSON(json)))
        } catch {
            return .refused(error)
        }
    }

    /// What a loader gets: the byte decoder's requests, else the tree's outcome.
    static func load(_ bytes: [UInt8]) -> Outcome {
        if let requests = RequestDecoder().decodeRequests(bytes: bytes) { return .requests(requests) }
        return tree(bytes)
    }

    /// Compares the two decoders on `count` generated documents; returns how many the byte decoder read itself and
    /// how many the tree accepted.
    static func compare(seed: UInt64, spoil: Double, count: Int) -> (fast: Int, valid: Int) {
        var generator = RequestDocumentGenerator(seed: seed, spoil: spoil)
        var fast = 0, valid = 0
        for k in 0..<count {
            let text = generator.document()
            let bytes = Array(text.utf8)
            let expected = tree(bytes)
            if case .requests = expected { valid += 1 } else if spoil == 0 { Issue.record("refused: \(expected) \(text)") }
            if let requests = RequestDecoder().decodeRequests(bytes: bytes) {
                fast += 1
                #expect(.requests(requests) == expected, "seed \(seed), document \(k): \(text)")
            }
            #expect(load(bytes) == expected, "seed \(seed), document \(k): \(text)")
        }
        return (fast, valid)
    }

    @Test func agreesWithTheTreeOnValidDocuments() {
        let (fast, valid) = Self.compare(seed: 49, spoil: 0, count: 1_500)
        // Unspoiled documents are all valid, and the byte decoder reads nearly all of them itself (it gives up on
        // a member name with an escape, as in some userInfo keys, only when that name is a request's field).
        #expect(valid == 1_500)
        #expect(fast == valid)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func agreesWithTheTreeOnSpoiledDocuments(seed: UInt64) {
        let (fast, valid) = Self.compare(seed: seed, spoil: 0.08, count: 1_500)
        // Both valid and invalid documents were generated, and the byte decoder read the valid ones.
        #expect(valid > 100 && valid < 1_400, "valid \(valid)")
        #expect(fast > 0 && fast <= valid, "fast \(fast), valid \(valid)")
    }

    @Test func readsTheLoadBenchmarksCircles() throws {
        let items = (0..<100).map { i in
            "{\"identifier\":\"r\(i)\",\"content\":{\"title\":\"{event} {region.id}\",\"body\":\"{device} at {fix.time}\"},"
                + "\"trigger\":{\"repeats\":true,\"region\":{\"type\":\"circle\",\"id\":\"c\(i)\",\"center\":{\"latitude\":53.5123456,"
                + "\"longitude\":9.9000001},\"radius\":120}}}"
        }
        let bytes = Array(("[" + items.joined(separator: ",") + "]").utf8)
        let requests = try #require(RequestDecoder().decodeRequests(bytes: bytes))
        #expect(.requests(requests) == Self.tree(bytes))
        #expect(requests.count == 100)
    }

    /// Documents that name each way a request is refused, with the error's path; the byte decoder leaves every one
    /// to the tree, and the loader's error is the tree's.
    static let refusals: [(String, String)] = [
        ("[1]", "[0]"),
        ("[{\"identifier\":\"a\",\"x\":1,\"trigger\":{}}]", "[0].x"),
        ("[{\"content\":{},\"trigger\":{}}]", "[0].identifier"),
        ("[{\"identifier\":\"\",\"trigger\":{}}]", "[0].identifier"),
        ("[{\"identifier\":\"a\",\"content\":[],\"trigger\":{}}]", "[0].content"),
        ("[{\"identifier\":\"a\"}]", "[0].trigger"),
        ("[{\"identifier\":\"a\",\"trigger\":null}]", "[0].trigger"),
        (circle(content: "{\"title\":1}"), "[0].content.title"),
        (circle(content: "{\"badge\":1.5}"), "[0].content.badge"),
        (circle(content: "{\"badge\":-1}"), "[0].content.badge"),
        (circle(content: "{\"userInfo\":[]}"), "[0].content.userInfo"),
        (circle(content: "{\"colour\":\"red\"}"), "[0].content.colour"),
        (circle(content: "{\"title\":\"{nope}\"}"), "[0].content.title"),
        (circle(trigger: ",\"when\":1"), "[0].trigger.when"),
        (circle(trigger: ",\"type\":\"time\""), "[0].trigger.type"),
        ("[{\"identifier\":\"a\",\"trigger\":{\"repeats\":true}}]", "[0].trigger.region"),
        (circle(trigger: ",\"notifyOnEntry\":false,\"notifyOnExit\":false"), "[0].trigger.notifyOnEntry"),
        (circle(trigger: ",\"repeats\":1"), "[0].trigger.repeats"),
        (circle(trigger: ",\"devices\":[]"), "[0].trigger.devices"),
        (circle(trigger: ",\"devices\":[\"a\",\"\"]"), "[0].trigger.devices[1]"),
        (circle(trigger: ",\"devices\":\"a\""), "[0].trigger.devices"),
        (circle(trigger: ",\"dwell\":-1"), "[0].trigger.dwell"),
        (circle(trigger: ",\"hysteresis\":\"1\""), "[0].trigger.hysteresis"),
        (circle(trigger: ",\"maximumAccuracy\":0"), "[0].trigger.maximumAccuracy"),
        (circle(trigger: ",\"minimumInterval\":1e400"), "[0].trigger.minimumInterval"),
        (circle(trigger: ",\"exitTimeout\":5"), "[0].trigger.exitTimeout"),
        (beacon("\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"", trigger: ",\"exitTimeout\":0"), "[0].trigger.exitTimeout"),
        (region("{\"id\":\"c\"}"), "[0].trigger.region.type"),
        (region("{\"type\":\"square\",\"id\":\"c\"}"), "[0].trigger.region.type"),
        (region("{\"type\":\"circle\",\"id\":\"\"}"), "[0].trigger.region.id"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"name\":3}"), "[0].trigger.region.name"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"radius\":10}"), "[0].trigger.region.center"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1},\"radius\":10}"), "[0].trigger.region.center.longitude"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":91,\"longitude\":0},\"radius\":10}"), "[0].trigger.region.center.latitude"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":-181},\"radius\":10}"), "[0].trigger.region.center.longitude"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":1,\"altitude\":1},\"radius\":10}"), "[0].trigger.region.center.altitude"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":1}}"), "[0].trigger.region.radius"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":1},\"radius\":0}"), "[0].trigger.region.radius"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":1},\"radius\":6e6}"), "[0].trigger.region.radius"),
        (region("{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":1},\"radius\":1,\"uuid\":\"x\"}"), "[0].trigger.region.uuid"),
        (region("{\"type\":\"polygon\",\"id\":\"p\"}"), "[0].trigger.region.geometry"),
        (region("{\"type\":\"polygon\",\"id\":\"p\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[0,0]}}"), "[0].trigger.region.geometry.type"),
        (region("{\"type\":\"polygon\",\"id\":\"p\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}"), "[0].trigger.region.geometry"),
        (beacon("\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"proximity\":\"close\""), "[0].trigger.region.proximity"),
        (beacon("\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"namespace\":null"), "[0].trigger.region.namespace"),
        (beacon("\"uuid\":\"nope\""), "[0].trigger.region.uuid"),
        (beacon("\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"minor\":1"), "[0].trigger.region.minor"),
        (beacon("\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"major\":65536"), "[0].trigger.region.major"),
        (beacon("\"namespace\":\"EDD1\""), "[0].trigger.region.namespace"),
        (beacon("\"namespace\":\"EDD1EBEAC04E5DEFA017\",\"instance\":\"01\""), "[0].trigger.region.instance"),
        (beacon("\"major\":1"), "[0].trigger.region.uuid"),
        // A valid request after a refused one changes nothing; the first refusal is the one reported.
        ("[" + circleObject(trigger: ",\"dwell\":-1") + "," + circleObject() + "]", "[0].trigger.dwell"),
        ("[" + circleObject() + "," + circleObject(trigger: ",\"dwell\":-1") + "]", "[1].trigger.dwell"),
        // A single request object, not in an array: no index in the path.
        (circleObject(trigger: ",\"dwell\":-1"), "trigger.dwell"),
    ]

    static func circleObject(content: String = "{\"title\":\"t\"}", trigger: String = "") -> String {
        "{\"identifier\":\"a\",\"content\":\(content),\"trigger\":{\"region\":{\"type\":\"circle\",\"id\":\"c\","
            + "\"center\":{\"latitude\":1,\"longitude\":2},\"radius\":10}\(trigger)}}"
    }
    static func circle(content: String = "{\"title\":\"t\"}", trigger: String = "") -> String {
        "[" + circleObject(content: content, trigger: trigger) + "]"
    }
    static func region(_ region: String) -> String { "[{\"identifier\":\"a\",\"trigger\":{\"region\":\(region)}}]" }
    static func beacon(_ fields: String, trigger: String = "") -> String {
        "[{\"identifier\":\"a\",\"trigger\":{\"region\":{\"type\":\"beacon\",\"id\":\"b\",\(fields)}\(trigger)}}]"
    }

    @Test(arguments: refusals.indices)
    func leavesEachRefusalToTheTree(index: Int) {
        let (text, path) = Self.refusals[index]
        let bytes = Array(text.utf8)
        #expect(RequestDecoder().decodeRequests(bytes: bytes) == nil, "\(text)")
        guard case .refused(let error) = Self.load(bytes) else {
            Issue.record("not refused: \(text) → \(Self.load(bytes))")
            return
        }
        #expect(error.path == path, "\(text): \(error)")
        #expect(error.identifier == (index == 0 || path.hasSuffix("identifier") ? nil : "a"), "\(text): \(error)")
        #expect(Self.load(bytes) == Self.tree(bytes))
    }

    /// Documents the parser refuses: a repeated name (also one the byte decoder would otherwise read), a syntax
    /// error after a refused request (the parser's error comes first, as before), trailing text.
    static let notJSON = [
        "[" + circleObject(trigger: ",\"repeats\":true,\"repeats\":false") + "]",
        "[{\"identifier\":\"a\",\"identifier\":\"b\",\"trigger\":{}}]",
        "[" + circleObject(trigger: ",\"dwell\":-1") + "," + circleObject() + ",]",
        "[" + circleObject() + "] x",
        "[" + circleObject() + "",
        "[" + circleObject(trigger: ",\"dwell\":01") + "]",
        "[" + circleObject(content: "{\"title\":\"\\ud800\"}") + "]",
    ]

    @Test(arguments: notJSON)
    func leavesInvalidJSONToTheTree(text: String) {
        let bytes = Array(text.utf8)
        #expect(RequestDecoder().decodeRequests(bytes: bytes) == nil)
        guard case .notJSON = Self.load(bytes) else {
            Issue.record("parsed: \(text) → \(Self.load(bytes))")
            return
        }
        #expect(Self.load(bytes) == Self.tree(bytes))
    }

    enum Stored: Equatable {
        case request(NotificationRequest)
        case error(String)
    }

    /// One stored request's text (a checkpoint's, the store's row): the same request or the same error as
    /// `decodeRequest(JSONParser.parse(text))`, including for an array or a GeoJSON Feature, which it refuses.
    @Test(arguments: [0, 0.08] as [Double])
    func decodesStoredRequestTextsAsTheTreeDoes(spoil: Double) {
        var generator = RequestDocumentGenerator(seed: 7, spoil: spoil)
        let decoder = RequestDecoder()
        var valid = 0
        for k in 0..<1_500 {
            let text = k % 100 == 99 ? "[" + generator.request(k) + "]" : generator.request(k)
            let old: Stored
            do { old = .request(try decoder.decodeRequest(try JSONParser.parse(text))) } catch { old = .error("\(error)") }
            let new: Stored
            do { new = .request(try decoder.decodeRequest(jsonText: text)) } catch { new = .error("\(error)") }
            if case .request = old { valid += 1 }
            #expect(new == old, "document \(k): \(text)")
        }
        #expect(spoil > 0 ? valid > 100 && valid < 1_400 : valid == 1_485, "valid \(valid)")
    }

    /// GeoJSON goes to the tree (its conversion has its own defaults); an empty array and a byte order mark do not.
    @Test func leavesGeoJSONToTheTreeAndReadsTheRest() throws {
        let feature = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[9.9,53.5]},\"properties\":{\"title\":\"t\"}}"
        #expect(RequestDecoder().decodeRequests(bytes: Array(feature.utf8)) == nil)
        guard case .requests(let converted) = Self.load(Array(feature.utf8)) else { Issue.record("feature refused"); return }
        #expect(converted.count == 1)
        #expect(try #require(RequestDecoder().decodeRequests(bytes: Array(" [ ] ".utf8))).isEmpty)
        let bom = Array("\u{FEFF}".utf8) + Array(Self.circle().utf8)
        #expect(.requests(try #require(RequestDecoder().decodeRequests(bytes: bom))) == Self.tree(bom))
    }

    /// The texts the listing and the journal keep for a body read from its bytes: each request's own bytes without
    /// the whitespace between tokens, the same JSON value as the tree's item, and for a compact document the tree's
    /// own text.
    @Test func eachRequestsTextIsItsBytesWithoutWhitespace() throws {
        var generator = RequestDocumentGenerator(seed: 77, spoil: 0)
        var compared = 0
        for _ in 0..<500 {
            let text = generator.document()
            let bytes = Array(text.utf8)
            guard let decoded = bytes.withUnsafeBytes({ RequestDecoder().decodeRequestsWithTexts(bytes: $0) }) else { continue }
            let json = try JSONParser.parse(bytes)
            let items = json.arrayValue ?? [json]
            #expect(decoded.isArray == (json.arrayValue != nil))
            #expect(decoded.texts.count == items.count && decoded.requests.count == items.count)
            for (t, item) in zip(decoded.texts, items) {
                #expect(try JSONParser.parse(t) == item, "\(t)")
                #expect(Self.whitespaceOutsideStrings(t) == 0, "\(t)")
                compared += 1
            }
        }
        #expect(compared > 500)

        let pretty = """
            [
              { "identifier" : "a b",
                "content": {"title": "say \\"hi\\" ,  there", "body": "x"},
                "trigger": {"repeats": true, "region": {"type": "circle", "id": "c 1",
                            "center": {"latitude": 53.5, "longitude": 9.9}, "radius": 120}}
              } ,
              {"identifier":"b","trigger":{"region":{"type":"circle","id":"c2","center":{"latitude":1,"longitude":2},"radius":50}}}
            ]
            """
        let decoded = try #require(Array(pretty.utf8).withUnsafeBytes { RequestDecoder().decodeRequestsWithTexts(bytes: $0) })
        #expect(decoded.isArray)
        #expect(decoded.texts == [
            #"{"identifier":"a b","content":{"title":"say \"hi\" ,  there","body":"x"},"trigger":{"repeats":true,"region":{"type":"circle","id":"c 1","center":{"latitude":53.5,"longitude":9.9},"radius":120}}}"#,
            #"{"identifier":"b","trigger":{"region":{"type":"circle","id":"c2","center":{"latitude":1,"longitude":2},"radius":50}}}"#,
        ])
        // The compact texts are what the tree writes for the same (compact) input.
        for t in decoded.texts { #expect(try JSONParser.parse(t).jsonText == t) }
        let one = try #require(Array(" {\"identifier\":\"o\",\"trigger\":{\"region\":{\"type\":\"circle\",\"id\":\"c\",\"center\":{\"latitude\":1,\"longitude\":2},\"radius\":5}}} ".utf8)
            .withUnsafeBytes { RequestDecoder().decodeRequestsWithTexts(bytes: $0) })
        #expect(!one.isArray && one.texts.count == 1 && one.texts[0].hasPrefix("{") && one.texts[0].hasSuffix("}"))
    }

    /// Whitespace bytes between a text's tokens.
    static func whitespaceOutsideStrings(_ text: String) -> Int {
        var n = 0, inString = false, escaped = false
        for c in text.utf8 {
            if inString {
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
            } else if c == 0x22 {
                inString = true
            } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                n += 1
            }
        }
        return n
    }
}
