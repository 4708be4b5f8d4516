import Synchronization

/// The SPEC's polygon checks (see `GEOSContext.validatedPolygons`) callable from any thread. GEOS contexts are not
/// thread-safe, so each call borrows one from a pool for its duration; no caller ever sees a context.
public enum PolygonValidation {
    /// Checks polygonal geometry and returns it ready for point location (split at the antimeridian if it crosses).
    public static func validated(_ input: PolygonSet) throws(GeometryError) -> PolygonSet {
        let lease = pool.withLock { $0.popLast() } ?? Lease()
        defer { pool.withLock { $0.append(lease) } }
        return try lease.context.validatedPolygons(input)
    }

    /// One context, used by one caller at a time: it is in the pool or with exactly one caller, never both.
    private final class Lease: @unchecked Sendable {
        let context = GEOSContext()
    }

    private static let pool = Mutex<[Lease]>([])
}
