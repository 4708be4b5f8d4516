import Storage
import Synchronization
import TriggerEngine

/// The API's credentials: the configured token (an admin credential) and those stored in the database, created,
/// listed, revoked and checked here. A check is one row looked up by the secret's public id and one constant-time
/// HMAC comparison; rows once read are kept in memory, so a check reads the database only for a credential it has
/// not seen for `cacheLifetime`. Revocation through this object takes effect at once; a `geotrigger token revoke`
/// run by another process on the same file within `cacheLifetime`.
public final class Credentials: Sendable {
    public enum Refusal: String, Error, Sendable {
        /// No `Authorization` header, or one of another scheme.
        case missing
        /// Not a configured token and not of the form `gt_<id>_…`, or no stored credential with that id.
        case unknown
        case revoked
        /// The id exists and the rest of the secret is wrong.
        case mismatch
    }

    public struct Created: Sendable {
        public var credential: StoredCredential
        /// Shown once: only its hash is stored.
        public var secret: String
    }

    /// Why a credential could not be created.
    public struct InvalidCredential: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    static let cacheLifetime: Duration = .seconds(10)

    let store: SQLiteStore
    let token: [UInt8]?
    private let cache = Mutex(Cache())
    /// Whether requests need credentials: a token is configured or a credential was ever stored.
    private let required: Mutex<Bool>

    /// - Parameter token: the configured token; nil or blank for none.
    public init(store: SQLiteStore, token: String?) throws {
        let token = token.flatMap { $0.trimmingWhitespace.isEmpty ? nil : Array($0.utf8) }
        self.store = store
        self.token = token
        required = Mutex(token != nil ? true : try store.hasCredentials())
    }

    /// Whether requests must carry a credential. A server started with neither a token nor a stored credential
    /// requires none (loopback only) until one is created through its API.
    public var isRequired: Bool { required.withLock { $0 } }

    /// Stores a new credential and returns it with its secret.
    public func create(name: String, scope: CredentialScope, devices: [String]) throws -> Created {
        let devices = devices.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if scope == .device, devices.isEmpty {
            throw InvalidCredential(description: "a device credential needs at least one device")
        }
        if scope != .device, !devices.isEmpty {
            throw InvalidCredential(description: "only a device credential names devices; \(scope.rawValue) covers every device")
        }
        if devices.contains(where: \.isEmpty) { throw InvalidCredential(description: "a device id cannot be empty") }
        let (id, secret) = try CredentialSecret.make { try store.credential(id: $0) != nil }
        let salt = CredentialSecret.random(CredentialSecret.saltBytes)
        let credential = StoredCredential(id: id, name: name, scope: scope, devices: devices, salt: salt,
                                          hash: CredentialSecret.hash(Array(secret.utf8), salt: salt), createdAt: .wallClock())
        try store.addCredential(credential)
        required.withLock { $0 = true }
        return Created(credential: credential, secret: secret)
    }

    /// Every stored credential, revoked ones included, oldest first.
    public func list() throws -> [StoredCredential] { try store.credentials() }

    /// Revokes the credential at once for this process; false if there is none with that id.
    public func revoke(id: String) throws -> Bool {
        let found = try store.revokeCredential(id: id, at: .wallClock())
        cache.withLock {
            $0.entries[id] = nil
            $0.revocations &+= 1
        }
        return found
    }

    /// The credential `secret` (a bearer token or a Basic password) stands for, or why it is refused.
    func verify(_ secret: [UInt8]) throws -> Result<Credential, Refusal> {
        if let token {
            // Compared whatever the secret looks like, so the configured token's check takes the same time.
            if BearerTokenMiddleware<APIContext>.constantTimeEqual(secret, token) { return .success(.configuredToken) }
        }
        guard let id = CredentialSecret.id(of: secret), let stored = try stored(id: id) else { return .failure(.unknown) }
        guard CredentialSecret.matches(secret, salt: stored.salt, hash: stored.hash) else { return .failure(.mismatch) }
        guard stored.revokedAt == nil else { return .failure(.revoked) }
        return .success(Credential(id: stored.id, scope: stored.scope, devices: Set(stored.devices)))
    }

    private func stored(id: String) throws -> StoredCredential? {
        let now = ContinuousClock.now
        let (hit, revocations) = cache.withLock { ($0.entries[id], $0.revocations) }
        if let hit, now - hit.readAt < Self.cacheLifetime { return hit.credential }
        guard let found = try store.credential(id: id) else { return nil }
        // A row read before a revocation in this process committed is not kept: it may predate it.
        cache.withLock { if $0.revocations == revocations { $0.entries[id] = (found, now) } }
        return found
    }

    private struct Cache {
        var entries: [String: (credential: StoredCredential, readAt: ContinuousClock.Instant)] = [:]
        /// Counts revocations through this object.
        var revocations: UInt64 = 0
    }
}
