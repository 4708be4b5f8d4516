/// What a credential may do (docs/service.md, "Credentials and scopes"): `admin` everything, `ingest` post fixes and
/// sightings for any device, `read` the queries and listings, `device` post and read as its own devices only.
public enum CredentialScope: String, Sendable, CaseIterable, Hashable {
    case admin, ingest, read, device
}
