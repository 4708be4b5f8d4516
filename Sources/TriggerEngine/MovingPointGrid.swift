import Foundation
import Geometry

/// Devices' newest positions on an equal-area-ish grid (rows of `cellDegrees` of latitude, each row cut into as
/// many columns as its width allows), updated in place per fix: each cell's members are a doubly linked list
/// threaded through per-member arrays, so a move is a few stores and allocates nothing once the cell exists.
/// The proximity rules' index: which devices may be within a distance of a point.
struct MovingPointGrid {
    /// Latitude degrees per row (and roughly per column at the row's latitude).
    let cellDegrees: Double
    let rows: Int32
    /// First member of each cell ever occupied (-1 once empty: cells are kept, so moves leave no tombstones).
    var heads = CellTable()
    /// By member: the next and previous member in its cell (-1: none) and its cell (`Self.absent` when not filed).
    var next: [Int32] = []
    var previous: [Int32] = []
    var cells: [UInt64] = []
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

    /// How many columns row `r` has: its narrowest width, in cells of `cellDegrees` at the equator.
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
        guard n > next.count else { return }
        let grow = n - next.count
        next.append(contentsOf: repeatElement(-1, count: grow))
        previous.append(contentsOf: repeatElement(-1, count: grow))
        cells.append(contentsOf: repeatElement(Self.absent, count: grow))
    }

    /// Files member `m` at a position (moving it if it was filed elsewhere).
    mutating func place(_ m: Int32, latitude: Double, longitude: Double, accuracy: Double) {
        if Int(m) >= next.count { reserve(members: max(Int(m) + 1, next.count * 2)) }
        if accuracy > maximumAccuracy { maximumAccuracy = accuracy }
        let k = key(latitude: latitude, longitude: longitude)
        if cells[Int(m)] == k { return }
        remove(m)
        let head = heads.lookup(k) ?? -1
        next[Int(m)] = head
        previous[Int(m)] = -1
        if head >= 0 { previous[Int(head)] = m }
        heads[k] = m
        cells[Int(m)] = k
    }

    mutating func remove(_ m: Int32) {
        guard Int(m) < cells.count else { return }
        let k = cells[Int(m)]
        guard k != Self.absent else { return }
        let n = next[Int(m)], p = previous[Int(m)]
        if p >= 0 { next[Int(p)] = n } else { heads[k] = n }
        if n >= 0 { previous[Int(n)] = p }
        next[Int(m)] = -1
        previous[Int(m)] = -1
        cells[Int(m)] = Self.absent
    }

    /// Calls `visit` with every member filed in a cell that comes within `metres` of the point (a superset of the
    /// members within `metres`; the caller measures).
    func query(latitude: Double, longitude: Double, metres: Double, _ visit: (Int32) -> Void) {
        guard heads.count > 0 else { return }
        let dLat = Geodesy.latitudeDegrees(spanning: metres)
        let r0 = row(latitude - dLat), r1 = row(latitude + dLat)
        let dLon = Geodesy.longitudeDegrees(spanning: metres, atLatitude: min(90, abs(latitude)))
        var r = r0
        while r <= r1 {
            let n = columns(row: r)
            var c0: Int32, c1: Int32
            if dLon >= 180 {
                c0 = 0; c1 = n - 1
            } else {
                c0 = Int32(((longitude - dLon + 180) / 360 * Double(n)).rounded(.down))
                c1 = Int32(((longitude + dLon + 180) / 360 * Double(n)).rounded(.down))
                if c1 - c0 >= n - 1 { c0 = 0; c1 = n - 1 }
            }
            var c = c0
            while c <= c1 {
                if let head = heads.lookup(Self.key(row: r, column: ((c % n) + n) % n)) {
                    var m = head
                    while m >= 0 {
                        visit(m)
                        m = next[Int(m)]
                    }
                }
                c += 1
            }
            r += 1
        }
    }
}
