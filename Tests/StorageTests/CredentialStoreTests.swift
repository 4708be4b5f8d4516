import Foundation
import Logging
import Storage
import TestSupport
import Testing
import TriggerEngine

/// The `credentials` table through the store's plain-value methods: what is stored survives reopening, revocation
/// keeps the row and its first time.
@Suite struct CredentialStoreTests {
    let path: String

    init() throws {
        path = try TestFolders.make("storage-tests").appendingPathComponent("geotrigger.sqlite").path
    }

    func open() throws -> SQLiteStore { try SQLiteStore(path: path, logger: Logger(label: "test")) }

    static func credential(_ id: String, scope: CredentialScope, devices: [String] = [], second: Int64) -> StoredCredential {
        StoredCredential(id: id, name: "n-\(id)", scope: scope, devices: devices, salt: Array(repeating: 1, count: 16),
                         hash: Array(repeating: 2, count: 32), createdAt: Timestamp(microseconds: second * 1_000_000))
    }

    @Test func credentialsSurviveReopeningAndRevocationKeepsTheRow() throws {
        do {
            let store = try open()
            #expect(try store.hasCredentials() == false)
            try store.addCredential(Self.credential("b", scope: .device, devices: ["jane/phone", "jane/watch"], second: 2))
            try store.addCredential(Self.credential("a", scope: .read, second: 1))
            #expect(throws: (any Error).self) { try store.addCredential(Self.credential("a", scope: .admin, second: 3)) }
            #expect(try store.revokeCredential(id: "a", at: Timestamp(microseconds: 10)))
            #expect(try store.revokeCredential(id: "a", at: Timestamp(microseconds: 20)))
            #expect(try store.revokeCredential(id: "missing", at: Timestamp(microseconds: 20)) == false)
            try store.close()
        }
        let store = try open()
        defer { try? store.close() }
        #expect(try store.hasCredentials())
        let all = try store.credentials()
        #expect(all.map(\.id) == ["a", "b"])
        #expect(all[0].revokedAt == Timestamp(microseconds: 10))
        #expect(all[1] == Self.credential("b", scope: .device, devices: ["jane/phone", "jane/watch"], second: 2))
        #expect(try store.credential(id: "b")?.devices == ["jane/phone", "jane/watch"])
        #expect(try store.credential(id: "c") == nil)
    }
}
