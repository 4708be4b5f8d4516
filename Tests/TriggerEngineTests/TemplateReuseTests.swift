import Geometry
import JSON
import Testing
@testable import TriggerEngine

/// The engine reuses the templates of the request added last when the next has the same content strings, and only
/// when compiling them again could not give anything else.
@Suite struct TemplateReuseTests {
    static func request(_ id: String, title: String, userInfo: JSONValue = .object([])) -> NotificationRequest {
        let region = Region(id: id, name: nil, shape: .circle(center: Coordinate(latitude: 1, longitude: 2), radius: 10))
        return NotificationRequest(identifier: id, content: NotificationContent(title: title, body: "{device}", userInfo: userInfo),
                                   trigger: LocationTrigger(region: region))
    }

    static func same(_ a: CompiledTemplates, _ b: CompiledTemplates) -> Bool {
        a.title == b.title && a.subtitle == b.subtitle && a.body == b.body && a.threadIdentifier == b.threadIdentifier
            && a.summaryArgument == b.summaryArgument
    }

    @Test func reusesOnlyWhatCompilingAgainWouldGive() throws {
        let plain = try CompiledTemplates(Self.request("a", title: "{event} {region.id}"))
        let reused = try CompiledTemplates(Self.request("b", title: "{event} {region.id}"), reusing: plain)
        #expect(Self.same(reused, try CompiledTemplates(Self.request("b", title: "{event} {region.id}"))))
        let other = try CompiledTemplates(Self.request("c", title: "{device}"), reusing: plain)
        #expect(other.title.source == "{device}")
        // Compiled with a userInfo key: the same title without the key is refused, not reused.
        let keyed = try CompiledTemplates(Self.request("d", title: "{userInfo.a}", userInfo: ["a": 1]))
        #expect(throws: RequestError.self) { try CompiledTemplates(Self.request("e", title: "{userInfo.a}"), reusing: keyed) }
    }

    @Test func theEngineRendersEachRequestsOwnValues() throws {
        let engine = TriggerEngine()
        try engine.add(contentsOf: (0..<3).map { Self.request("r\($0)", title: "{region.id}") }
            + [Self.request("k", title: "{userInfo.a}", userInfo: ["a": "x"])])
        #expect(engine.pendingRequests.count == 4)
        #expect(throws: RequestError.self) { try engine.add(Self.request("m", title: "{userInfo.a}")) }
    }
}
