import Foundation
import Host
import Logging
import Storage
import TestSupport
import TriggerEngine

/// A temporary directory with a store, for one test; removed when the test's fixture goes.
final class HostFixture {
    let directory: String
    let logger = Logger(label: "host-test")

    init(_ name: String) throws {
        directory = try TestFolders.make(name).path
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    var databasePath: String { directory + "/g.sqlite" }
    var journalPath: String { directory + "/journal" }

    /// The store the host's logic is tested with: in memory, one per fixture, so a "restart" finds what the host
    /// stored before, as it would in the file.
    func store() throws -> any StateStore { memory }
    private let memory = MemoryStore()

    /// The SQLite file, for the tests about it (a database from before the journal).
    func sqliteStore() throws -> SQLiteStore { try SQLiteStore(path: databasePath, logger: logger) }

    static var eventClock: TriggerEngine.Configuration { TriggerEngine.Configuration(clock: .eventTime) }

    /// One sink that never settles anything: the outbox keeps every notification, across restarts too.
    static let sinks = ["test"]

    /// Every notification the outbox holds as (deliveryId, json), by deliveryId.
    static func outbox(_ host: EngineHost) -> [String: String] {
        Dictionary(host.outbox.all.map { ($0.deliveryId, $0.json) }, uniquingKeysWith: { a, _ in a })
    }

    static func fix(_ device: String, _ second: Int, inside: Bool) -> LocationFix {
        LocationFix(device: device, timestamp: Timestamp(microseconds: Int64(1_760_000_000 + second) * 1_000_000),
                    latitude: inside ? 52.5219 : 52.53, longitude: 13.4132)
    }

    static func request(_ id: String, repeats: Bool = true) -> String {
        #"{"identifier":"\#(id)","content":{"title":"Alex"},"trigger":{"region":{"type":"circle","id":"alex","center":{"latitude":52.5219,"longitude":13.4132},"radius":200},"repeats":\#(repeats)}}"#
    }
}
