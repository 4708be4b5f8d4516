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
}
