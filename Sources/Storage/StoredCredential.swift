import TriggerEngine

/// A credential as stored: never its secret, only a salted hash of it.
public struct StoredCredential: Sendable, Hashable {
    /// Public, and part of the secret (`gt_<id>_…`), so a check looks up one row instead of hashing against all.
    public var id: String
    public var name: String
    public var scope: CredentialScope
    /// For `device` scope, the device ids it may post and read as; empty for every other scope.
    public var devices: [String]
    public var salt: [UInt8]
    public var hash: [UInt8]
    public var createdAt: Timestamp
    public var revokedAt: Timestamp?

    public init(id: String, name: String, scope: CredentialScope, devices: [String], salt: [UInt8], hash: [UInt8],
                createdAt: Timestamp, revokedAt: Timestamp? = nil) {
        self.id = id
        self.name = name
        self.scope = scope
        self.devices = devices
        self.salt = salt
        self.hash = hash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
