import JSON
import EngineLog
import Foundation
import Host
import Storage
import Testing
import TestSupport
import TriggerEngine

/// A body of more requests than one journal record takes (`EngineHost.requestsPerRecord`) is applied in pieces:
/// the engine's state, the listing in SQLite, the notifications and a restart from the journal are the same as
/// with the requests added one by one; an invalid entry anywhere in it is named by index and field, and then
/// nothing of the body is added.
@Suite struct LargeRequestBodyTests {
    /// Overlapping circles, some `repeats: false`, a few identifiers named twice (the later one replaces).
    static func requests(_ count: Int) -> [String] {
        var rng = SplitMix(seed: 0xB0D1)
        return (0..<count).map { k in
            let id = k % 997 == 5 ? "r\(k - 5)" : "r\(k)"
            let lat = 52.5 + rng.double(0, 0.2), lon = 13.4 + rng.double(0, 0.3)
            return #"{"identifier":"\#(id)","content":{"title":"{event} \#(k)"},"trigger":{"region":{"type":"circle","id":"c\#(k)","center":{"latitude":\#(lat),"longitude":\#(lon)},"radius":\#(150 + k % 100)},"repeats":\#(k % 7 != 0)}}"#
        }
    }

    static func fixes() -> [(line: Int, fix: LocationFix)] {
        var rng = SplitMix(seed: 0xF1C5)
        return (0..<2_000).map { k in
            (k + 1, LocationFix(device: "d\(k % 40)", timestamp: Timestamp(microseconds: Int64(1_760_000_000 + k) * 1_000_000),
                                latitude: 52.5 + rng.double(0, 0.2), longitude: 13.4 + rng.double(0, 0.3)))
        }
    }

    @Test func aBodyInPiecesEqualsTheRequestsAddedOneByOne() async throws {
        let texts = Self.requests(2 * EngineHost.requestsPerRecord + 777)
        let body = try JSONParser.parse("[" + texts.joined(separator: ",") + "]")

        let f = try HostFixture("large-body")
        let store = try f.sqliteStore()
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: store, log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        let results = try await host.add(body)
        #expect(results.count == texts.count)
        #expect(results.filter { $0.result == .replaced }.count == texts.indices.filter { $0 % 997 == 5 }.count)

        let g = try HostFixture("large-body-one-by-one")
        let reference = try EngineHost(store: try g.store(), log: MemoryHostLog(), configuration: HostFixture.eventClock,
                                       sinks: HostFixture.sinks, logger: g.logger)
        var one: [(identifier: String, result: EngineHost.AddResult)] = []
        for t in texts { one += try await reference.add(try JSONParser.parse(t)) }
        #expect(results.map(\.identifier) == one.map(\.identifier))
        #expect(results.map(\.result) == one.map(\.result))

        func rows(_ s: any StateStore) throws -> [String] {
            try s.listing().requests.map { "\($0.identifier) \($0.json) \($0.state)" }.sorted()
        }
        #expect(try rows(store) == rows(try g.store()))
        #expect(try rows(store).count == Set(texts.indices.map { $0 % 997 == 5 ? $0 - 5 : $0 }).count)

        let fixes = Self.fixes()
        for start in stride(from: 0, to: fixes.count, by: 500) {
            _ = try await host.process(fixes: Array(fixes[start..<start + 500]))
            _ = try await reference.process(fixes: Array(fixes[start..<start + 500]))
        }
        #expect(await host.feeder.feedPending())
        #expect(await reference.feeder.feedPending())
        let fired = HostFixture.outbox(host)
        #expect(fired.count > 100, "the scenario fires too little to compare")
        #expect(fired == HostFixture.outbox(reference))

        // A restart reads the pieces back from the journal, one record each, in order.
        let (restarted, reopened) = try await Self.restart(host, log, f)
        #expect(try rows(try f.sqliteStore()) == rows(try g.store()))
        #expect(await restarted.feeder.feedPending())
        #expect(HostFixture.outbox(restarted) == fired)
        reopened.close()
    }

    @Test func anInvalidEntryDeepInABodyIsNamedAndNothingIsAdded() async throws {
        var texts = Self.requests(2 * EngineHost.requestsPerRecord + 10)
        let bad = texts.count - 3
        texts[bad] = texts[bad].replacingOccurrences(of: #""radius":"#, with: #""radius":-"#)
        let f = try HostFixture("large-body-invalid")
        let store = try f.sqliteStore()
        let host = try EngineHost(store: store, log: MemoryHostLog(), configuration: HostFixture.eventClock,
                                  sinks: HostFixture.sinks, logger: f.logger)
        do {
            _ = try await host.add(try JSONParser.parse("[" + texts.joined(separator: ",") + "]"))
            Issue.record("a body with a negative radius was accepted")
        } catch let error as HostError {
            guard case .invalidRequest(let e) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(e.path == "[\(bad)].trigger.region.radius")
            #expect(e.reason == "must be > 0 metres")
        }
        #expect(try store.listing().requests.isEmpty)
    }

    /// A body read from its bytes (`POST /v1/requests`' path for SPEC §1 JSON, no tree): the same requests, states
    /// and JSON values in the listing as the tree's path, each text the request's bytes without whitespace, and a
    /// restart from the journal gives the same listing again.
    @Test func aBodyReadFromItsBytesEqualsTheTreesPathAndRestartsTheSame() async throws {
        let texts = Self.requests(2 * EngineHost.requestsPerRecord + 333)
        let body = "[\n" + texts.map { "  " + $0.replacingOccurrences(of: ",\"", with: ",\n    \"") }.joined(separator: " ,\n") + "\n]\n"
        let decoded = try #require(Array(body.utf8).withUnsafeBytes { RequestDecoder().decodeRequestsWithTexts(bytes: $0) })
        #expect(decoded.texts == texts)

        let f = try HostFixture("bytes-body")
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: try f.sqliteStore(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        let results = try await host.add(decoded: decoded.requests, texts: decoded.texts, isArray: decoded.isArray)

        let g = try HostFixture("bytes-body-tree")
        let reference = try EngineHost(store: try g.store(), log: MemoryHostLog(), configuration: HostFixture.eventClock,
                                       sinks: HostFixture.sinks, logger: g.logger)
        let treeResults = try await reference.add(try JSONParser.parse(body))
        #expect(results.map(\.identifier) == treeResults.map(\.identifier))
        #expect(results.map(\.result) == treeResults.map(\.result))

        func rows(_ s: any StateStore) throws -> [String: (json: JSONValue, state: String)] {
            Dictionary(uniqueKeysWithValues: try s.listing().requests.map { ($0.identifier, (json: try JSONParser.parse($0.json), state: "\($0.state)")) })
        }
        let bytesRows = try rows(try f.sqliteStore()), treeRows = try rows(try g.store())
        #expect(bytesRows.count == treeRows.count && bytesRows.count > 4_000)
        for (id, row) in bytesRows {
            #expect(row.json == treeRows[id]?.json && row.state == treeRows[id]?.state, "\(id)")
        }

        let (restarted, reopened) = try await Self.restart(host, log, f)
        let after = try f.sqliteStore().listing().requests
        #expect(after.count == bytesRows.count)
        // Each row's text is the request's own bytes without whitespace (the later of two with one identifier).
        var lastText: [String: String] = [:]
        for (request, text) in zip(decoded.requests, decoded.texts) { lastText[request.identifier] = text }
        for r in after {
            #expect(r.json == lastText[r.identifier], "\(r.identifier)")
            #expect(try JSONParser.parse(r.json) == bytesRows[r.identifier]?.json)
        }
        withExtendedLifetime(restarted) {}
        reopened.close()
    }

    /// The host stopped (its writes drained, its journal closed) and a new one started on the same journal and file,
    /// which restores with nothing divergent.
    static func restart(_ host: EngineHost, _ log: FileHostLog, _ f: HostFixture) async throws -> (EngineHost, FileHostLog) {
        await host.drainWrites()
        log.close()
        let reopened = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let restarted = try EngineHost(store: try f.sqliteStore(), log: reopened, configuration: HostFixture.eventClock,
                                       sinks: HostFixture.sinks, logger: f.logger)
        #expect(restarted.restored.divergent == 0)
        return (restarted, reopened)
    }
}
