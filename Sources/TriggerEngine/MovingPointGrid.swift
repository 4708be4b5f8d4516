import Foundation
import Geometry

/// Devices' newest positions on a grid (rows of `cellDegrees` of latitude, each row cut into as many columns as its
/// width allows), updated in place per fix: each cell's members are a doubly linked list threaded through one
/// node per member, so a move is a few stores and allocates nothing once the cell exists. A node also holds the
/// member's position, so a query drops members outside the query's box while walking, without touching anything
/// else of theirs. The proximity rules' index: which devices may be within a distance of a point.
struct MovingPointGrid {
    struct Node {
        var next: Int32 = -1
        var previous: Int32 = -1
        /// `MovingPointGrid.absent` when not filed.
        var cell = MovingPointGrid.absent
        var latitude = 0.0
        var longitude = 0.0
    }

    /// Latitude degrees per row (and roughly per column at the row's latitude).
    let cellDegrees: Double
    let rows: Int32
    /// First member of each cell ever occupied (-1 once empty: cells are kept, so moves leave no tombstones).
    var heads = CellTable()
    /// By member.
    var nodes: [Node] = []
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
        guard n > nodes.count else { return }
        nodes.append(contentsOf: repeatElement(Node(), count: n - nodes.count))
    }

    /// Files member `m` at a position (moving it if it was filed elsewhere).
    mutating func place(_ m: Int32, latitude: Double, longitude: Double, accuracy: Double) {
        if Int(m) >= nodes.count { reserve(members: max(Int(m) + 1, nodes.count * 2)) }
        if accuracy > maximumAccuracy { maximumAccuracy = accuracy }
        nodes[Int(m)].latitude = latitude
        nodes[Int(m)].longitude = longitude
        let k = key(latitude: latitude, longitude: longitude)
        if nodes[Int(m)].cell == k { return }
        remove(m)
        let head = heads.lookup(k) ?? -1
        nodes[Int(m)].next = head
        nodes[Int(m)].previous = -1
        if head >= 0 { nodes[Int(head)].previous = m }
        heads[k] = m
        nodes[Int(m)].cell = k
    }

    mutating func remove(_ m: Int32) {
        guard Int(m) < nodes.count else { return }
        let k = nodes[Int(m)].cell
        guard k != Self.absent else { return }
        let n = nodes[Int(m)].next, p = nodes[Int(m)].previous
        if p >= 0 { nodes[Int(p)].next = n } else { heads[k] = n }
        if n >= 0 { nodes[Int(n)].previous = p }
        nodes[Int(m)].next = -1
        nodes[Int(m)].previous = -1
        nodes[Int(m)].cell = Self.absent
    }

    /// Calls `visit` with every member within the query's latitude/longitude box of `metres` around the point (a
    /// superset of the members within `metres`; the caller measures).
    func query(latitude: Double, longitude: Double, metres: Double, _ visit: (Int32) -> Void) {
        guard heads.count > 0 else { return }
        let dLat = Geodesy.latitudeDegrees(spanning: metres)
        let r0 = row(latitude - dLat), r1 = row(latitude + dLat)
        let dLon = Geodesy.longitudeDegrees(spanning: metres, atLatitude: min(90, abs(latitude)))
        let south = latitude - dLat, north = latitude + dLat
        // The box test in longitude, across the antimeridian too: the difference folded into [-180, 180).
        let everyLongitude = dLon >= 180
        nodes.withUnsafeBufferPointer { nodes in
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
                    if let head = heads.lookup(Self.key(row: r, column: ((c % n) + n) % n)) {
                        var m = head
                        while m >= 0 {
                            let node = nodes[Int(m)]
                            if node.latitude >= south, node.latitude <= north {
                                if everyLongitude {
                                    visit(m)
                                } else {
                                    var d = node.longitude - longitude
                                    if d >= 180 { d -= 360 } else if d < -180 { d += 360 }
                                    if abs(d) <= dLon { visit(m) }
                                }
                            }
                            m = node.next
                        }
                    }
                    c += 1
                }
                r += 1
            }
        }
    }
}
