import Foundation
import Logging
@testable import Storage
import TestSupport
import Testing
import TriggerEngine

/// A damaged database file is refused at start, with its path and SQLite's findings (issue: 16 flipped bytes in an
/// interior page used to be served as healthy while every acknowledgement failed to commit).
@Suite struct DamagedFileTests {
    @Test func flippedBytesInAnInteriorPageRefuseToOpen() throws {
        let dir = try TestFolders.make("damaged")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("g.sqlite").path
        let logger = Logger(label: "damaged-file-tests")
        do {
            let store = try SQLiteStore(path: path, logger: logger)
            var n = Fixture.entry()
            try store.write { db in
                for k in 0..<2000 {
                    n.deliveryId = "alex/d/\(k)"
                    _ = try OutboxRepository().append(n, in: db)
                }
            }
            try store.close()
        }
        // The file is many pages long; damage the header of one in the middle (a b-tree page of the outbox).
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = Int(data[16]) << 8 | Int(data[17])
        let pages = data.count / pageSize
        #expect(pages > 20)
        let page = pages / 2
        for k in 0..<16 { data[page * pageSize + k] ^= 0xA5 }
        try data.write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path, logger: logger)
            Issue.record("a damaged file opened")
        } catch let error as StoreError {
            guard case .damaged(let p, let problems) = error else { Issue.record("\(error)"); return }
            #expect(p == path)
            #expect(!problems.isEmpty && problems != ["ok"])
            #expect("\(error)".contains(path) && "\(error)".contains("quick_check"))
        }
    }

    @Test func aMissingDirectoryIsNamedInTheError() throws {
        let path = "/nonexistent-\(UUID().uuidString)/g.sqlite"
        #expect { _ = try SQLiteStore(path: path, logger: Logger(label: "t")) } throws: { "\($0)".contains(path) }
    }
}
