import Storage

/// The verified caller of one request, carried in the request context: what it may do and, for a device
/// credential, as which devices.
public struct Credential: Sendable, Hashable {
    /// The stored credential's id; nil for the configured token (`--token-file`, `GEOTRIGGER_TOKEN`) and for a server
    /// that requires no credentials.
    public var id: String?
    public var scope: CredentialScope
    public var devices: Set<String>

    public init(id: String?, scope: CredentialScope, devices: Set<String> = []) {
        self.id = id
        self.scope = scope
        self.devices = devices
    }

    /// A server with no token and no stored credential lets everyone do everything (loopback only, as before).
    static let open = Credential(id: nil, scope: .admin)
    /// The configured token: an admin credential.
    static let configuredToken = Credential(id: nil, scope: .admin)

    func allows(_ access: RouteAccess) -> Bool {
        switch (scope, access) {
        case (.admin, _), (_, .anyCredential): true
        case (.read, .read), (.read, .ownDeviceRead): true
        case (.ingest, .ingest): true
        case (.device, .ingest), (.device, .ownDeviceRead): true
        default: false
        }
    }

    /// Whether it may post as or read `device`: any device for the wider scopes, its own for a device credential.
    func owns(_ device: String) -> Bool {
        scope != .device || devices.contains(device)
    }

    /// The first of `devices` that is not its own, if any.
    func firstForeign<S: Sequence<String>>(_ devices: S) -> String? {
        guard scope == .device else { return nil }
        return devices.first { !self.devices.contains($0) }
    }

    /// Throws the 403 naming the first of `devices` that is not its own (counted as a refusal).
    func requireOwn<S: Sequence<String>>(_ devices: S) throws(Problem) {
        if let foreign = firstForeign(devices) {
            ServerMetrics().authenticationRefused("device")
            throw Problem.foreignDevice(foreign)
        }
    }
}
