import Geometry

/// Where a trigger fires (SPEC §1): a geodesic circle, a polygonal area, or a beacon region.
public struct Region: Hashable, Sendable {
    public var id: String
    public var name: String?
    public var shape: Shape

    public enum Shape: Hashable, Sendable {
        /// `radius` in metres on the WGS84 ellipsoid.
        case circle(center: Coordinate, radius: Double)
        /// Validated (and, across the antimeridian, split) polygons.
        case polygon(PolygonSet)
        case beacon(BeaconRegion)
        /// A circle around other devices (`ProximityRegion`).
        case proximity(ProximityRegion)
    }

    public init(id: String, name: String? = nil, shape: Shape) {
        self.id = id
        self.name = name
        self.shape = shape
    }

    /// `circle`, `polygon` or `beacon`, as in the JSON.
    public var typeName: String {
        switch shape {
        case .circle: "circle"
        case .polygon: "polygon"
        case .beacon: "beacon"
        case .proximity: "proximity"
        }
    }

    public var isBeacon: Bool { if case .beacon = shape { return true }; return false }
}

/// A beacon region (SPEC §1): a proximity UUID with optional major/minor (iBeacon, AltBeacon), or an Eddystone-UID
/// namespace with optional instance; optionally only at a given proximity or closer.
public struct BeaconRegion: Hashable, Sendable {
    public enum Identifier: Hashable, Sendable {
        case uuid(UUID128, major: UInt16?, minor: UInt16?)
        case eddystone(namespace: EddystoneNamespace, instance: EddystoneInstance?)
    }

    public var identifier: Identifier
    public var proximity: Proximity?

    public init(identifier: Identifier, proximity: Proximity? = nil) {
        self.identifier = identifier
        self.proximity = proximity
    }

    /// Whether a beacon's identity belongs to this region (identity only; proximity is checked separately).
    @inlinable
    public func matches(_ beacon: BeaconIdentity) -> Bool {
        switch (identifier, beacon) {
        case let (.uuid(u, major, minor), .iBeacon(bu, bmaj, bmin)), let (.uuid(u, major, minor), .altBeacon(bu, bmaj, bmin)):
            return u == bu && (major == nil || major == bmaj) && (minor == nil || minor == bmin)
        case let (.eddystone(ns, inst), .eddystoneUID(bns, binst)):
            return ns == bns && (inst == nil || inst == binst)
        default:
            return false
        }
    }
}
