import Foundation
import GRDB
import JSON
import TriggerEngine

/// The `credentials` table. Rows are never deleted: a revoked credential keeps its row, so its id is never reused
/// and the listing shows when it was revoked.
struct CredentialRepository {
    func insert(_ c: StoredCredential, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO credentials (id, name, scope, devices, salt, hash, created_at, revoked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [c.id, c.name, c.scope.rawValue, Self.devicesJSON(c.devices), Data(c.salt), Data(c.hash),
                        c.createdAt.microseconds, c.revokedAt?.microseconds])
    }

    func find(id: String, in db: Database) throws -> StoredCredential? {
        try Row.fetchOne(db, sql: "SELECT * FROM credentials WHERE id = ?", arguments: [id]).map(Self.credential)
    }

    /// Oldest first.
    func all(in db: Database) throws -> [StoredCredential] {
        try Row.fetchAll(db, sql: "SELECT * FROM credentials ORDER BY created_at, id").map(Self.credential)
    }

    func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM credentials") ?? 0
    }

    /// Sets the revocation time unless already revoked; false if there is no such credential.
    func revoke(id: String, at time: Timestamp, in db: Database) throws -> Bool {
        guard try find(id: id, in: db) != nil else { return false }
        try db.execute(sql: "UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                       arguments: [time.microseconds, id])
        return true
    }

    static func credential(_ row: Row) throws -> StoredCredential {
        let scopeText: String = row["scope"]
        guard let scope = CredentialScope(rawValue: scopeText) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "credential \(row["id"] as String) has unknown scope '\(scopeText)'")
        }
        let salt: Data = row["salt"], hash: Data = row["hash"]
        let devicesText: String = row["devices"]
        let devices = (try? JSONParser.parse(Array(devicesText.utf8)))?.arrayValue?.compactMap(\.stringValue) ?? []
        return StoredCredential(id: row["id"], name: row["name"], scope: scope, devices: devices, salt: Array(salt), hash: Array(hash),
                                createdAt: Timestamp(microseconds: row["created_at"]),
                                revokedAt: (row["revoked_at"] as Int64?).map { Timestamp(microseconds: $0) })
    }

    static func devicesJSON(_ devices: [String]) -> String {
        var w = JSONWriter()
        w.beginArray()
        for d in devices { w.string(d) }
        w.endArray()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
