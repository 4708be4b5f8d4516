/// The queries of a `PolygonLocator`, over the memory it built: 64 bytes, one cache line in a 64-byte-aligned
/// array, holding everything a query reads before the point's cell.
///
/// With many polygons every candidate's locator is a cache miss, and each load that depends on the one before adds
/// another: an engine reading a locator object, then its grid's cell, then the cell's edge numbers, then the edges
/// spent most of a dense polygon workload waiting on them (BENCHMARKS.md §1). Kept beside the region's other hot
/// numbers as a plain value, this needs no object read and no reference count: the grid's line, then the cell
/// (its state and where its edges start, in one load), then the cell's edge offsets, then the edges.
///
/// The memory at `base`, 64-byte aligned: the row-major cells and a sentinel that ends the last one (padded to a
/// cache line), then each cell's edges in turn as byte offsets from `base`, then the edges. Valid while the locator
/// that made it lives; never written after it is built, hence `@unchecked Sendable`.
public struct PolygonGrid: @unchecked Sendable {
    public enum Location: Sendable, Equatable { case inside, boundary, outside }

    @usableFromInline
    struct Edge: Sendable {
        @usableFromInline var ax: Double, ay: Double, bx: Double, by: Double

        /// An edge along the ±180° meridian made by splitting at the antimeridian: part of the ring, but not a real
        /// border, so it never counts as "near the boundary". Worked out rather than stored, so an edge is 32 bytes,
        /// two to a cache line (a stored flag made it 40).
        @inlinable var isSeam: Bool { ax == bx && abs(ax) == 180 }
    }

    /// A grid cell: where its edge offsets start (the next cell's start ends them) and its state.
    @usableFromInline
    struct Cell: Sendable {
        @usableFromInline var start: UInt32
        @usableFromInline var state: UInt8
    }

    /// A grid cell's state: no edge touches it and it lies outside or inside, or edges pass through it.
    @usableFromInline static let outsideCell: UInt8 = 0
    @usableFromInline static let insideCell: UInt8 = 1
    @usableFromInline static let edgeCell: UInt8 = 2
    /// An edge cell whose walk to an empty cell is shorter to the left (in edges scanned).
    @usableFromInline static let edgeCellWalkingLeft: UInt8 = 3

    /// How far past its ends (degrees, ~0.1 mm) an edge is listed in cells: far more than the rounding of any
    /// intersection computed here, so a point in a cell with no edges is never within rounding of one.
    @usableFromInline static let slack = 1e-9

    @usableFromInline let minLongitude: Double
    @usableFromInline let minLatitude: Double
    @usableFromInline let maxLongitude: Double
    @usableFromInline let maxLatitude: Double
    @usableFromInline let columnScale: Double
    @usableFromInline let rowScale: Double
    @usableFromInline let base: UnsafeMutableRawPointer
    @usableFromInline let columns: UInt16
    @usableFromInline let rows: UInt16
    /// The fewest metres per degree of longitude within a degree of latitude of the bounds (0 near a pole), rounded
    /// down: a conservative scale for `hasBoundary`'s box.
    @usableFromInline let minimumMetresPerLongitudeDegree: Float

    init(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double,
         columnScale: Double, rowScale: Double, base: UnsafeMutableRawPointer,
         columns: UInt16, rows: UInt16, minimumMetresPerLongitudeDegree: Float) {
        self.minLongitude = minLongitude
        self.minLatitude = minLatitude
        self.maxLongitude = maxLongitude
        self.maxLatitude = maxLatitude
        self.columnScale = columnScale
        self.rowScale = rowScale
        self.base = base
        self.columns = columns
        self.rows = rows
        self.minimumMetresPerLongitudeDegree = minimumMetresPerLongitudeDegree
    }

    /// A grid for no polygon (every point outside), for the slots of other regions: a locator that lives as long
    /// as the process owns its memory.
    public static var empty: PolygonGrid { emptyLocator.grid }
    static let emptyLocator = PolygonLocator(PolygonSet(polygons: []))

    /// Bytes of the cells and the sentinel, padded to a cache line.
    @inlinable @inline(__always)
    static func cellBytes(_ cellCount: Int) -> Int { ((cellCount + 1) * MemoryLayout<Cell>.stride + 63) & ~63 }

    @inlinable var cellCount: Int { Int(columns) * Int(rows) }

    @inlinable var cells: UnsafeMutablePointer<Cell> { base.assumingMemoryBound(to: Cell.self) }

    @inlinable var offsets: UnsafeMutablePointer<UInt32> {
        (base + Self.cellBytes(cellCount)).assumingMemoryBound(to: UInt32.self)
    }

    /// The edge at a byte offset from `offsets`.
    @inlinable @inline(__always)
    func edge(at offset: UInt32) -> Edge { (base + Int(offset)).assumingMemoryBound(to: Edge.self).pointee }

    /// The cell index of a coordinate along one axis, clamped to the grid (in floating point first, so a far
    /// coordinate never overflows `Int`).
    @inlinable @inline(__always)
    static func cell(_ v: Double, origin: Double, scale: Double, count: Int) -> Int {
        let f = (v - origin) * scale
        return f >= Double(count - 1) ? count - 1 : f > 0 ? Int(f) : 0
    }

    @inlinable @inline(__always)
    func column(_ x: Double) -> Int { Self.cell(x, origin: minLongitude, scale: columnScale, count: Int(columns)) }

    @inlinable @inline(__always)
    func row(_ y: Double) -> Int { Self.cell(y, origin: minLatitude, scale: rowScale, count: Int(rows)) }

    /// Reads what `locate` will read first for the point (the point's cell and, when edges pass through it, the
    /// cell's first and last edges), so a caller can bring several candidates into the cache at once. A cell's edges
    /// are mostly neighbours along the ring, so the two ends cover the lines between them too; with the first alone,
    /// the rest of the cell's edges were a third of `locate`'s samples on a dense polygon workload.
    @inlinable
    public func warm(latitude y: Double, longitude x: Double) -> UInt8 {
        let c = row(y) * Int(columns) + column(x)
        let cell = cells[c]
        guard cell.state >= Self.edgeCell else { return cell.state }
        let last = Int(cells[c + 1].start) - 1
        let first = edge(at: offsets[Int(cell.start)]).isSeam ? cell.state : cell.state &+ 1
        return last > Int(cell.start) && edge(at: offsets[last]).isSeam ? first &+ 1 : first
    }

    /// Where the point lies; a point exactly on an edge or vertex is `boundary`.
    @inlinable
    public func locate(latitude y: Double, longitude x: Double) -> Location {
        guard y >= minLatitude, y <= maxLatitude, x >= minLongitude, x <= maxLongitude else { return .outside }
        let cells = cells, offsets = offsets, columns = Int(columns)
        let row = row(y), first = column(x)
        let base = row * columns
        let s = cells[base + first].state
        if s < Self.edgeCell { return s == Self.insideCell ? .inside : .outside }
        let leftward = s == Self.edgeCellWalkingLeft
        // The point's own cell: crossings on the walk's side of it, and whether it lies on an edge. Every ring
        // crosses a whole line an even number of times, so the parity of the crossings to the left equals that of
        // those to the right.
        var inside = false
        for k in Int(cells[base + first].start)..<Int(cells[base + first + 1].start) {
            let edge = edge(at: offsets[k])
            let ayAbove = edge.ay > y, byAbove = edge.by > y
            if ayAbove != byAbove {
                let xi = edge.ax + (y - edge.ay) / (edge.by - edge.ay) * (edge.bx - edge.ax)
                if x == xi { return .boundary }
                if (leftward ? xi < x : x < xi), column(xi) == first { inside.toggle() }
            }
            // Exactly on the edge (including vertices and horizontal edges): the SPEC counts it inside.
            if y >= min(edge.ay, edge.by), y <= max(edge.ay, edge.by), x >= min(edge.ax, edge.bx),
                x <= max(edge.ax, edge.bx),
                (edge.bx - edge.ax) * (y - edge.ay) - (edge.by - edge.ay) * (x - edge.ax) == 0
            {
                return .boundary
            }
        }
        // Then each cell that way up to an empty one, which stands for everything beyond it (past the grid's end
        // lies outside).
        let step = leftward ? -1 : 1
        var column = first + step
        while column >= 0, column < columns {
            let c = base + column
            let s = cells[c].state
            if s < Self.edgeCell {
                if s == Self.insideCell { inside.toggle() }
                break
            }
            for k in Int(cells[c].start)..<Int(cells[c + 1].start) {
                let edge = edge(at: offsets[k])
                guard (edge.ay > y) != (edge.by > y) else { continue }
                let xi = edge.ax + (y - edge.ay) / (edge.by - edge.ay) * (edge.bx - edge.ax)
                if self.column(xi) == column { inside.toggle() }
            }
            column += step
        }
        return inside ? .inside : .outside
    }

    /// Whether any real (non-seam) edge lies closer than `metres` to the point: the SPEC's uncertain band test
    /// `|d| < r + h`. Distances use the ellipsoid's local scale at the point, exact enough at band widths of metres
    /// to kilometres. Only the edges of the cells under the band's box are measured; when the box crosses the
    /// antimeridian or covers many cells, every cell's are (an edge in several cells is measured again, which
    /// changes no answer).
    @inlinable
    public func hasBoundary(within metres: Double, latitude y: Double, longitude x: Double) -> Bool {
        guard metres > 0 else { return false }
        // A box sure to hold every point within `metres`, without trigonometry: the grid's cells under it are looked
        // at first, and only edges in them measured.
        let dLat = Geodesy.latitudeDegrees(spanning: metres) + Self.slack
        if y - dLat > maxLatitude || y + dLat < minLatitude { return false }
        let metresPerDegree = Double(minimumMetresPerLongitudeDegree)
        let dLon = dLat <= 1 && metresPerDegree > 0 ? metres / metresPerDegree * 1.000_001 + Self.slack : .infinity
        let wraps = !(dLon < 180) || x - dLon < -180 || x + dLon > 180
        if !wraps, x - dLon > maxLongitude || x + dLon < minLongitude { return false }
        let cells = cells, offsets = offsets, columns = Int(columns)
        let firstRow = row(y - dLat), lastRow = row(y + dLat)
        let firstColumn = column(x - dLon), lastColumn = column(x + dLon)
        let everyEdge = wraps || (lastRow - firstRow + 1) * (lastColumn - firstColumn + 1) > 64
        if !everyEdge {
            // With no edge cell under the box, no edge is near.
            var anyEdges = false
            rows: for row in firstRow...lastRow {
                for c in (row * columns + firstColumn)...(row * columns + lastColumn) where cells[c].state >= Self.edgeCell {
                    anyEdges = true
                    break rows
                }
            }
            if !anyEdges { return false }
        }
        let scale = Geodesy.metresPerDegree(latitude: y)
        let m2 = metres * metres
        @inline(__always) func near(_ edge: Edge) -> Bool {
            if edge.isSeam { return false }
            let py = (edge.ay - y) * scale.latitude, qy = (edge.by - y) * scale.latitude
            if (py > metres && qy > metres) || (py < -metres && qy < -metres) { return false }
            let px = Self.wrap(edge.ax - x) * scale.longitude, qx = Self.wrap(edge.bx - x) * scale.longitude
            if (px > metres && qx > metres) || (px < -metres && qx < -metres) { return false }
            // Squared distance from the origin (the fix) to segment p–q.
            let dx = qx - px, dy = qy - py
            let len2 = dx * dx + dy * dy
            var t = len2 > 0 ? -(px * dx + py * dy) / len2 : 0
            t = min(1, max(0, t))
            let cx = px + t * dx, cy = py + t * dy
            return cx * cx + cy * cy < m2
        }
        if everyEdge {
            for k in 0..<Int(cells[cellCount].start) where near(edge(at: offsets[k])) { return true }
            return false
        }
        for row in firstRow...lastRow {
            // A row's cells are adjacent, so their edges are one run.
            let first = row * columns + firstColumn, last = row * columns + lastColumn
            for k in Int(cells[first].start)..<Int(cells[last + 1].start) where near(edge(at: offsets[k])) { return true }
        }
        return false
    }

    @inlinable
    static func wrap(_ dLon: Double) -> Double {
        dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon
    }
}
