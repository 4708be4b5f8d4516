import Testing
import TriggerEngine

/// Rendering fills each placeholder in: the one String it builds holds every piece, whatever their lengths and
/// encodings (pieces longer than a small string, multi-byte characters, empty values, literal braces).
@Suite struct ContentTemplateTests {
    @Test(arguments: [
        ("{event} {region.id}", "entry alex"),
        ("Vessel {device} at {region.name}: {{berth}}", "Vessel vessel-244000123-ÆØÅ-🚢 at Kai Süd: {berth}"),
        ("{device}{device}", "vessel-244000123-ÆØÅ-🚢vessel-244000123-ÆØÅ-🚢"),
        ("[{userInfo.note}]", "[]"),
        ("plain text only", "plain text only"),
        ("{region.name}", "Kai Süd"),
    ])
    func piecesAreJoinedWhole(source: String, expected: String) throws {
        let template = try ContentTemplate(source, userInfoKeys: ["note"])
        let rendered = template.render { p in
            switch p {
            case .device: "vessel-244000123-ÆØÅ-🚢"
            case .regionID: "alex"
            case .regionName: "Kai Süd"
            case .event: "entry"
            case .userInfo: ""
            default: "?"
            }
        }
        #expect(rendered == expected)
        #expect(Array(rendered.utf8) == Array(expected.utf8))
    }

    /// Errors name the character (not the byte) where the template goes wrong.
    @Test(arguments: [
        ("Hi {device", "unclosed '{' at character 3"),
        ("Grüße } x", "unmatched '}' at character 6; write '}}' for a literal brace"),
        ("🚢🚢 {event", "unclosed '{' at character 3"),
        ("{nope}", "unknown placeholder {nope}; known: {device}, {region.id}, {region.name}, {event}, {fix.time}, {fix.latitude}, {fix.longitude}, {beacon.proximity}, {nearby.device}, {nearby.distance}, {userInfo.KEY}"),
        ("{userInfo.missing}", "placeholder {userInfo.missing} names a key that userInfo does not have"),
    ])
    func errorsNameTheCharacter(source: String, reason: String) {
        do {
            _ = try ContentTemplate(source, userInfoKeys: ["note"])
            Issue.record("\(source) was accepted")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func literalBracesAndConstantsAreText() throws {
        let t = try ContentTemplate("🚢{{x}} {{{event}}}", userInfoKeys: [])
        #expect(t.render { _ in "entry" } == "🚢{x} {entry}")
        #expect(!t.isConstant)
        #expect(try ContentTemplate("no placeholders, ünïcode", userInfoKeys: []).isConstant)
    }
}
