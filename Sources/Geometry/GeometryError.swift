/// Why a geometry was refused. `reason` is GEOS's own wording when GEOS found the problem.
public struct GeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
