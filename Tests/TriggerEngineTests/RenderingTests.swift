import Testing
@testable import TriggerEngine

@Suite struct RenderingTests {
    @Test func placeholdersDefaultsAndSpecMemberOrder() throws {
        let h = Harness()
        try h.add("""
            {"identifier":"depot-north-arrivals",
             "content":{"title":"Arrived at {region.name}","subtitle":"{device}","body":"{device} entered {region.name} at {fix.time} ({userInfo.dock})",
                        "badge":1,"sound":"default","categoryIdentifier":"arrival","userInfo":{"dock":"B","any":["JSON","value"]}},
             "trigger":{"type":"location","region":{"type":"circle","id":"depot-north","name":"Depot North",
                        "center":{"latitude":52.52,"longitude":13.405},"radius":150},
                        "notifyOnEntry":true,"notifyOnExit":false,"repeats":true,"devices":["truck-12","truck-13"]}}
            """)
        h.fix("truck-12", 0, 52.53, 13.405)
        let n = try #require(h.fix("truck-12", 2, 52.5201, 13.4049, accuracy: 8).first)
        #expect(n.jsonLine == """
            {"identifier":"depot-north-arrivals","deliveryId":"depot-north-arrivals/truck-12/1-1795161602","content":{"title":"Arrived at Depot North","subtitle":"truck-12","body":"truck-12 entered Depot North at 2026-11-20T08:00:02Z (B)","badge":1,"sound":"default","categoryIdentifier":"arrival","threadIdentifier":"depot-north","summaryArgument":"truck-12","userInfo":{"dock":"B","any":["JSON","value"]}},"trigger":{"type":"location","event":"entry","repeats":true,"region":{"type":"circle","id":"depot-north","name":"Depot North"}},"device":"truck-12","fix":{"timestamp":"2026-11-20T08:00:02Z","latitude":52.5201,"longitude":13.4049,"horizontalAccuracy":8},"firedAt":"2026-11-20T08:00:02Z"}
            """)
    }

    @Test func literalBracesAndExplicitThreadIdentifier() throws {
        let h = Harness()
        try h.add("""
            {"identifier":"x","content":{"title":"{{{event}}}","threadIdentifier":"t-{region.id}","summaryArgument":"S"},
             "trigger":{"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":100},"initialTrigger":true}}
            """)
        let n = try #require(h.fix("d", 0, 0, 0).first)
        #expect(n.content.title == "{entry}")
        #expect(n.content.threadIdentifier == "t-r")
        #expect(n.content.summaryArgument == "S")
    }

    @Test func timestampsRoundTripThroughRFC3339() {
        for text in ["2026-11-20T08:15:02Z", "2026-11-20T08:15:02.123Z", "1999-12-31T23:59:59.000001Z"] {
            #expect(Timestamp(rfc3339: text)?.rfc3339 == text)
        }
        #expect(Timestamp(rfc3339: "2026-11-20T09:15:02+01:00") == Timestamp(rfc3339: "2026-11-20T08:15:02Z"))
        #expect(Timestamp(rfc3339: "2026-02-30T00:00:00Z") == nil)
        #expect(Timestamp(rfc3339: "2026-11-20 08:15:02") == Timestamp(rfc3339: "2026-11-20T08:15:02Z"))
    }
}
