import Testing
import TestSupport
@testable import TriggerEngine

/// `ContentTemplate.isPlainlyValid` (the byte decoder's check) never calls a template valid that the compiler refuses,
/// and calls the common ones valid.
@Suite struct ContentTemplateCheckTests {
    static let pieces = ["{", "}", "{{", "}}", "{device}", "{region.id}", "{region.name}", "{event}", "{fix.time}",
                         "{fix.latitude}", "{fix.longitude}", "{beacon.proximity}", "{userInfo.a}", "{nope}", "{Device}",
                         "{ device}", "text", " at ", "é", "日本", "{fix.time", "device}", "{{device}}", ""]

    @Test func neverAcceptsWhatTheCompilerRefuses() {
        var rng = SplitMix(seed: 49)
        var plain = 0
        for _ in 0..<5_000 {
            let source = (0..<rng.int(0, 5)).map { _ in rng.pick(Self.pieces) }.joined()
            let compiles = (try? ContentTemplate(source, userInfoKeys: ["a"])) != nil
            if ContentTemplate.isPlainlyValid(source) {
                plain += 1
                #expect(compiles, "\(source)")
                #expect((try? ContentTemplate(source, userInfoKeys: [])) != nil, "\(source)")
            } else if compiles {
                // Only a userInfo placeholder (which needs the keys) is left to the compiler.
                #expect(source.contains("{userInfo.a}"), "\(source)")
            }
        }
        #expect(plain > 500)
    }

    @Test func acceptsTheCommonTemplates() {
        for source in ["", "Welcome", "{event} {region.id}", "{device} at {fix.time}", "{{literal}} {region.name}",
                       "{fix.latitude},{fix.longitude} {beacon.proximity}"] {
            #expect(ContentTemplate.isPlainlyValid(source), "\(source)")
        }
        for source in ["{nope}", "{", "}", "{userInfo.a}", "a}b"] {
            #expect(!ContentTemplate.isPlainlyValid(source), "\(source)")
        }
    }
}
