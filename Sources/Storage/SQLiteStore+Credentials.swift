import TriggerEngine

/// Credentials, in plain values: callers never see the database.
extension SQLiteStore {
    /// Stores a new credential; its id must be new.
    public func addCredential(_ credential: StoredCredential) throws {
        try write { db in try CredentialRepository().insert(credential, in: db) }
    }

    public func credential(id: String) throws -> StoredCredential? {
        try read { db in try CredentialRepository().find(id: id, in: db) }
    }

    /// Every credential, revoked ones included, oldest first.
    public func credentials() throws -> [StoredCredential] {
        try read { db in try CredentialRepository().all(in: db) }
    }

    /// Whether any credential was ever created (revoked ones count: revoking the last must not open the server).
    public func hasCredentials() throws -> Bool {
        try read { db in try CredentialRepository().count(in: db) > 0 }
    }

    /// Revokes the credential (a second revocation keeps the first time); false if there is no such credential.
    public func revokeCredential(id: String, at time: Timestamp) throws -> Bool {
        try write { db in try CredentialRepository().revoke(id: id, at: time, in: db) }
    }
}
