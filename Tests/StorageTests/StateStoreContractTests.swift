import EngineLog
import Foundation
import Logging
import Storage
import Testing
import TestSupport
import TriggerEngine

/// One contract, two stores: what `MemoryStore` answers is what the SQLite file answers, so a test of the logic
/// above it on memory says the same as one on the file.
@Suite struct StateStoreContractTests {
    enum Kind: String, CaseIterable { case sqlite, memory }

    static func open(_ kind: Kind) throws -> any StateStore {
        switch kind {
        case .sqlite: try SQLiteStore(path: try TestFolders.make("contract").appendingPathComponent("g.sqlite").path, logger: Logger(label: "contract"))
        case .memory: MemoryStore()
        }
    }

    static func stored(_ id: String, region: String = "alex", devices: String? = nil) -> StoredRequest {
        let list = devices.map { #", "devices": \#($0)"# } ?? ""
        let json = #"{"identifier":"\#(id)","trigger":{"region":{"type":"circle","id":"\#(region)","center":{"latitude":1,"longitude":2},"radius":5}\#(list)}}"#
        return StoredRequest(identifier: id, json: json, state: .init(revision: 1, firings: 0, addedGeneration: 1, addedAt: Timestamp(microseconds: 5)))
    }

    static func entry(_ sequence: Int64, device: String = "d") -> StoredNotification {
        StoredNotification(sequence: sequence, deliveryId: "n\(sequence)", identifier: "alex", device: device, json: #"{"n":\#(sequence)}"#,
                    createdAt: Timestamp(microseconds: 1_000 * sequence), enqueuedAt: Timestamp(microseconds: 2_000 * sequence))
    }

    @Test(arguments: Kind.allCases) func theListingPagesAndFiltersByRegionAndDevice(kind: Kind) throws {
        let store = try Self.open(kind)
        try store.saveRequests([Self.stored("c"), Self.stored("a", region: "zoo"), Self.stored("b", devices: #"["jane/phone"]"#),
                                Self.stored("d", devices: #""*""#), Self.stored("e", devices: #"["x", "*"]"#), Self.stored("f", devices: "null")])
        #expect(try store.requestsPage(after: nil, offset: 0, limit: 10, region: nil, device: nil).map(\.identifier) == ["a", "b", "c", "d", "e", "f"])
        #expect(try store.requestsPage(after: "b", offset: 1, limit: 2, region: nil, device: nil).map(\.identifier) == ["d", "e"])
        #expect(try store.requestsPage(after: nil, offset: 0, limit: 10, region: "zoo", device: nil).map(\.identifier) == ["a"])
        #expect(try store.requestsPage(after: nil, offset: 0, limit: 10, region: nil, device: "jane/phone").map(\.identifier) == ["a", "b", "c", "d", "e", "f"])
        #expect(try store.requestsPage(after: nil, offset: 0, limit: 10, region: nil, device: "other").map(\.identifier) == ["a", "c", "d", "e", "f"])
        #expect(try store.request("b")?.json == Self.stored("b", devices: #"["jane/phone"]"#).json)
        #expect(try store.request("nope") == nil)
    }

    @Test(arguments: Kind.allCases) func deliveredRequestsLeaveTheListingAndComeBackWhenSavedAgain(kind: Kind) throws {
        let store = try Self.open(kind)
        try store.saveRequests([Self.stored("a"), Self.stored("b")])
        try store.markDelivered([DeliveredEntry(identifier: "a", json: "{}", device: "d", deliveredAt: Timestamp(microseconds: 9))])
        var listing = try store.listing()
        #expect(listing.requests.map(\.identifier) == ["b"])
        #expect(listing.delivered.map(\.identifier) == ["a"])
        try store.saveRequests([Self.stored("a")])
        listing = try store.listing()
        #expect(listing.requests.map(\.identifier) == ["a", "b"] && listing.delivered.isEmpty)
        try store.replaceRequestListing([Self.stored("z")], delivered: [DeliveredEntry(identifier: "y", json: "{}", device: "d", deliveredAt: Timestamp(microseconds: 1))])
        #expect(try store.requests().map(\.identifier) == ["z"])
        #expect(try store.deliveredRequests().map(\.identifier) == ["y"])
        try store.deleteRequests(["z"])
        #expect(try store.requests().isEmpty)
        try store.saveRequests([Self.stored("q"), Self.stored("r")])
        try store.deleteAllRequests()
        #expect(try store.requests().isEmpty)
    }

    @Test(arguments: Kind.allCases) func aCursorNeverMovesBackAndRefusedEntriesBecomeDeadLetters(kind: Kind) async throws {
        let store = try Self.open(kind)
        try store.registerSinks(["a": 0, "b": 7])
        try await store.settle(sink: "a", through: 5, refused: [RefusedEntry(entry: Self.entry(3), status: 400, response: "no", attempts: 2)],
                               at: Timestamp(microseconds: 77))
        try await store.settle(sink: "a", through: 4, refused: [], at: Timestamp(microseconds: 78))
        try store.registerSinks(["b": 1])
        #expect(try store.sinkCursors() == ["a": 5, "b": 7])

        try await store.settle(sink: "b", through: 9, refused: [RefusedEntry(entry: Self.entry(8), status: nil, response: "gone", attempts: 1)],
                               at: Timestamp(microseconds: 79))
        #expect(try store.deadLetterCount(sink: "a") == 1)
        let all = try store.deadLetters(sink: nil, limit: 10)
        #expect(all.map(\.sink) == ["b", "a"], "newest first")
        let letter = try #require(try store.deadLetters(sink: "a", limit: 10).first)
        #expect(letter.entry.deliveryId == "n3" && letter.entry.json == #"{"n":3}"# && letter.status == 400 && letter.response == "no")
        #expect(letter.attempts == 2 && letter.failedAt == Timestamp(microseconds: 77) && letter.replayRequestedAt == nil)
        #expect(letter.entry.enqueuedAt == Timestamp(microseconds: 6_000))
        #expect(try store.deadLetter(id: letter.id) == letter)

        #expect(try store.deadLettersToReplay(sink: "a", limit: 10).isEmpty)
        #expect(try store.requestReplay(ofDeadLetter: letter.id, at: Timestamp(microseconds: 80)))
        #expect(try !store.requestReplay(ofDeadLetter: 999_999, at: Timestamp(microseconds: 80)))
        #expect(try store.deadLettersToReplay(sink: "a", limit: 10).map(\.id) == [letter.id])
        try await store.deadLetterRefusedAgain(id: letter.id, status: 422, response: "still no", at: Timestamp(microseconds: 81))
        let again = try #require(try store.deadLetter(id: letter.id))
        #expect(again.attempts == 3 && again.status == 422 && again.response == "still no" && again.replayRequestedAt == nil)
        try await store.deleteDeadLetter(id: letter.id)
        #expect(try store.deadLetter(id: letter.id) == nil)
        #expect(try store.deadLetterCount(sink: "a") == 0)
    }

    @Test(arguments: Kind.allCases) func aNewStoreHasNoLegacyState(kind: Kind) throws {
        let store = try Self.open(kind)
        #expect(try !store.hasLegacyState())
        #expect(try store.legacyOutbox().isEmpty)
        #expect(try store.outboxFedPosition() == 0)
        #expect(store.unhealthyReason == nil)
    }
}
