import Foundation
import Geometry

/// Writes the workload for the shapely peer: little-endian binary arrays it reads with numpy.
/// regions.bin: UInt32 count, then per region UInt32 vertex count and (lon, lat) Float64 pairs — circles as
/// 64-gon approximations in degrees (the peer has no geodesic circle); fixes.bin: UInt32 count, lon Float64[],
/// lat Float64[].
enum PeerExport {
    static func write(_ w: Workload, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var regions = Data()
        func u32(_ v: Int, _ d: inout Data) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func f64(_ v: Double, _ d: inout Data) { withUnsafeBytes(of: v.bitPattern.littleEndian) { d.append(contentsOf: $0) } }
        u32(w.circles.count + w.polygons.count, &regions)
        for c in w.circles {
            // Degrees at the circle's own latitude: the regions span several degrees of it.
            let scale = Geodesy.metresPerDegree(latitude: c.center.latitude)
            u32(65, &regions)
            for k in 0...64 {
                let a = Double(k % 64) / 64 * 2 * .pi
                f64(c.center.longitude + c.radius * cos(a) / scale.longitude, &regions)
                f64(c.center.latitude + c.radius * sin(a) / scale.latitude, &regions)
            }
        }
        for p in w.polygons {
            u32(p.count, &regions)
            for c in p { f64(c.longitude, &regions); f64(c.latitude, &regions) }
        }
        try regions.write(to: directory.appendingPathComponent("regions.bin"))
        var fixes = Data()
        u32(w.fixLatitudes.count, &fixes)
        for v in w.fixLongitudes { f64(v, &fixes) }
        for v in w.fixLatitudes { f64(v, &fixes) }
        try fixes.write(to: directory.appendingPathComponent("fixes.bin"))
    }
}
