import CPrefetch
import Foundation
import Geometry

/// Devices' newest positions on a grid (rows of `cellDegrees` of latitude, each row cut into as many columns as its
/// width allows), updated in place per fix. Each cell keeps its members with their positions in one array, so a
/// query reads a cell front to back (members linked through a per-member array were a cache miss each), and
/// drops those outside its box without touching anything else of theirs. A move swaps the member out of its old
/// cell and appends it to the new one: once the cells have grown to their usual size, nothing is allocated.
/// The proximity rules' index: which devices may be within a distance of a point.
struct MovingPointGrid {
    struct Entry {
        var member: Int32
        var latitude: Double
        var longitude: Double
    }

    /// Latitude degrees per row (and roughly per column at the row's latitude).
    let cellDegrees: Double
    let rows: Int32
    /// Each cell ever occupied: its bucket (cells are kept when they empty, and so are their buckets).
    var cellIndex = CellTable()
    var buckets: [[Entry]] = []
    /// By member: its cell (`MovingPointGrid.absent` when not filed), its bucket and its place in the bucket.
    var memberCell: [UInt64] = []
    var memberBucket: [Int32] = []
    var memberPosition: [Int32] = []
    /// The largest horizontal accuracy ever filed: a query widens by it, so no member within reach is missed.
    var maximumAccuracy = 0.0

    static let absent = UInt64.max

    /// A grid whose cells are about `metres` across (at least 10 m; at most a degree).
    init(cellMetres metres: Double) {
        let degrees = min(1, max(Geodesy.latitudeDegrees(spanning: max(10, metres)), 1e-4))
        cellDegrees = degrees
        rows = Int32((180 / degrees).rounded(.up))
    }

    @inline(__always)
    func row(_ latitude: Double) -> Int32 { min(rows - 1, max(0, Int32(((latitude + 90) / cellDegrees).rounded(.down)))) }

    /// How many columns row `r` has: its widest width, in cells of `cellDegrees` at the equator.
    @inline(__always)
    func columns(row r: Int32) -> Int32 {
        let south = Double(r) * cellDegrees - 90, north = south + cellDegrees
        let closest = south < 0 && north > 0 ? 0 : min(abs(south), abs(north))
        return max(1, Int32((360 * cos(closest * .pi / 180) / cellDegrees).rounded(.down)))
    }

    @inline(__always)
    func column(_ longitude: Double, columns n: Int32) -> Int32 {
        let c = Int32(((longitude + 180) / 360 * Double(n)).rounded(.down))
        return ((c % n) + n) % n
    }

    @inline(__always)
    static func key(row: Int32, column: Int32) -> UInt64 { UInt64(UInt32(bitPattern: row)) << 32 | UInt64(UInt32(bitPattern: column)) }

    func key(latitude: Double, longitude: Double) -> UInt64 {
        let r = row(latitude)
        return Self.key(row: r, column: column(longitude, columns: columns(row: r)))
    }

    mutating func reserve(members n: Int) {
        guard n > memberCell.count else { return }
        let grow = n - memberCell.count
        memberCell.append(contentsOf: repeatElement(Self.absent, count: grow))
        memberBucket.append(contentsOf: repeatElement(-1, count: grow))
        memberPosition.append(contentsOf: repeatElement(-1, count: grow))
    }

    /// Files member `m` at a position (moving it if it was filed elsewhere).
    mutating func place(_ m: Int32, latitude: Double, longitude: Double, accuracy: Double) {
        if Int(m) >= memberCell.count { reserve(members: max(Int(m) + 1, memberCell.count * 2)) }
        if accuracy > maximumAccuracy { maximumAccuracy = accuracy }
        let k = key(latitude: latitude, longitude: longitude)
        if memberCell[Int(m)] == k {
            let b = Int(memberBucket[Int(m)]), i = Int(memberPosition[Int(m)])
            buckets[b][i].latitude = latitude
            buckets[b][i].longitude = longitude
            return
        }
        remove(m)
        let b: Int32
        if let known = cellIndex.lookup(k) {
            b = known
        } else {
            b = Int32(buckets.count)
            buckets.append([])
            cellIndex[k] = b
        }
        memberCell[Int(m)] = k
        memberBucket[Int(m)] = b
        memberPosition[Int(m)] = Int32(buckets[Int(b)].count)
        buckets[Int(b)].append(Entry(member: m, latitude: latitude, longitude: longitude))
    }

    mutating func remove(_ m: Int32) {
        guard Int(m) < memberCell.count, memberCell[Int(m)] != Self.absent else { return }
        let b = Int(memberBucket[Int(m)]), i = Int(memberPosition[Int(m)])
        let last = buckets[b].removeLast()
        if i < buckets[b].count {
            buckets[b][i] = last
            memberPosition[Int(last.member)] = Int32(i)
        }
        memberCell[Int(m)] = Self.absent
        memberBucket[Int(m)] = -1
        memberPosition[Int(m)] = -1
    }

    /// Starts loading what a query of the same point and distance will read first: with `cells`, each cell's table
    /// slot; without, each cell's member array (its slot has been loaded by then). Two stages a few fixes apart, as
    /// the engine's fixed index does: one at a time, each cell's misses would not overlap.
    func prefetch(latitude: Double, longitude: Double, metres: Double, cells: Bool) {
        guard cellIndex.count > 0 else { return }
        let dLat = Geodesy.latitudeDegrees(spanning: metres)
        let dLon = Geodesy.longitudeDegrees(spanning: metres, atLatitude: min(90, abs(latitude)))
        guard dLon < 180 else { return }
        var r = row(latitude - dLat)
        let r1 = row(latitude + dLat)
        while r <= r1 {
            let n = columns(row: r)
            var c = Int32(((longitude - dLon + 180) / 360 * Double(n)).rounded(.down))
            let c1 = min(c + n - 1, Int32(((longitude + dLon + 180) / 360 * Double(n)).rounded(.down)))
            while c <= c1 {
                let k = Self.key(row: r, column: ((c % n) + n) % n)
                if cells {
                    cellIndex.prefetch(k)
                } else if let b = cellIndex.lookup(k) {
                    buckets[Int(b)].withUnsafeBufferPointer { if let base = $0.baseAddress { geotrigger_prefetch(base) } }
                }
                c += 1
            }
            r += 1
        }
    }

    /// Calls `visit` with every member within the query's latitude/longitude box of `metres` around the point (a
    /// superset of the members within `metres`; the caller measures).
    func query(latitude: Double, longitude: Double, metres: Double, _ visit: (Int32) -> Void) {
        guard cellIndex.count > 0 else { return }
        let dLat = Geodesy.latitudeDegrees(spanning: metres)
        let r0 = row(latitude - dLat), r1 = row(latitude + dLat)
        let dLon = Geodesy.longitudeDegrees(spanning: metres, atLatitude: min(90, abs(latitude)))
        let south = latitude - dLat, north = latitude + dLat
        // The box test in longitude, across the antimeridian too: the difference folded into [-180, 180).
        let everyLongitude = dLon >= 180
        do {
            var r = r0
            while r <= r1 {
                let n = columns(row: r)
                var c0: Int32, c1: Int32
                if everyLongitude {
                    c0 = 0; c1 = n - 1
                } else {
                    c0 = Int32(((longitude - dLon + 180) / 360 * Double(n)).rounded(.down))
                    c1 = Int32(((longitude + dLon + 180) / 360 * Double(n)).rounded(.down))
                    if c1 - c0 >= n - 1 { c0 = 0; c1 = n - 1 }
                }
                var c = c0
                while c <= c1 {
                    if let b = cellIndex.lookup(Self.key(row: r, column: ((c % n) + n) % n)) {
                        buckets[Int(b)].withUnsafeBufferPointer { entries in
                            for e in entries where e.latitude >= south && e.latitude <= north {
                                if everyLongitude {
                                    visit(e.member)
                                } else {
                                    var d = e.longitude - longitude
                                    if d >= 180 { d -= 360 } else if d < -180 { d += 360 }
                                    if abs(d) <= dLon { visit(e.member) }
                                }
                            }
                        }
                    }
                    c += 1
                }
                r += 1
            }
        }
    }
}
