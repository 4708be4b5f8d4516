import Storage

/// What a route asks of the credential that calls it (`ScopeMiddleware`). Device credentials pass the routes that
/// name a device, and the handler then checks that the device is theirs.
enum RouteAccess: Sendable {
    /// Changes requests, credentials, the outbox.
    case admin
    /// Listings and queries over every device.
    case read
    /// One device's state: `read`, or a device credential for its own devices.
    case ownDeviceRead
    /// Posting fixes and sightings: `ingest`, or a device credential posting as its own devices.
    case ingest
    /// Any valid credential (the OpenAPI document).
    case anyCredential

    /// The scopes that may call it, for a 403's detail.
    var neededScopes: String {
        switch self {
        case .admin: "admin"
        case .read: "read or admin"
        case .ownDeviceRead: "read or admin (or device, for its own devices)"
        case .ingest: "ingest or admin (or device, for its own devices)"
        case .anyCredential: "any"
        }
    }
}
