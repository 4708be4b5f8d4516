#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Point location in validated polygonal geometry, in pure Swift, for the per-fix hot path.
///
/// GEOS stays the authority on validity (`GEOSContext.validatedPolygons`) and is the oracle in tests; per fix it is
/// slower and allocates a point per query (GEOS-NOTES.md), so evaluation uses this. Every ring's edges (shells and
/// holes of every part) sit in one flat list, and a grid over the bounds lists the edges passing through each cell
/// (conservatively: an edge within a hair of a cell is listed in it). A cell no edge touches is wholly inside or
/// wholly outside, decided once when the locator is built, so most queries answer from one byte. Elsewhere a
/// horizontal ray from the point, left or right (whichever scans fewer edges), counts crossings only through the
/// cells up to the nearest empty one, whose state stands for every crossing beyond it: even-odd ray casting, with
/// the same comparisons a scan of every edge makes, so the answers are those of that scan (a test compares them) at
/// a fraction of its work on spiky or detailed shapes. About one cell per edge: finer grids measured no faster and
/// cost memory and loading time.
public final class PolygonLocator: @unchecked Sendable {
    public enum Location: Sendable, Equatable { case inside, boundary, outside }

    @usableFromInline
    struct Edge: Sendable {
        @usableFromInline var ax: Double, ay: Double, bx: Double, by: Double

        /// An edge along the ±180° meridian made by splitting at the antimeridian: part of the ring, but not a real
        /// border, so it never counts as "near the boundary". Worked out rather than stored, so an edge is 32 bytes,
        /// two to a cache line (a stored flag made it 40).
        @inlinable var isSeam: Bool { ax == bx && abs(ax) == 180 }
    }

    /// A grid cell: where its edge numbers start in `cellEdges` (the next cell's start ends them; a last, sentinel
    /// cell closes the grid) and its state.
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

    public let bounds: BoundingBox
    @usableFromInline let columnScale: Double
    @usableFromInline let rowScale: Double
    /// One allocation, owned here and freed in `deinit`: the row-major cells (and a sentinel), then each cell's
    /// edge numbers in turn, then the edges. A query goes from the locator to its cell (state and where its edges
    /// start, in one load) to the cell's edge numbers and their edges. Separate arrays for states, starts, numbers
    /// and edges cost a dependent cache miss more per candidate, and those misses are most of a dense polygon
    /// workload's time (BENCHMARKS.md §1). Never written after `init`, hence `@unchecked Sendable`.
    @usableFromInline let cells: UnsafeMutablePointer<Cell>
    @usableFromInline let cellEdges: UnsafeMutablePointer<UInt32>
    @usableFromInline let edgeList: UnsafeMutablePointer<Edge>
    @usableFromInline let columns: Int
    @usableFromInline let rows: Int
    /// The polygon's edges (each counted once).
    public let edgeCount: Int
    /// The fewest metres per degree of longitude within a degree of latitude of the bounds (0 near a pole): a
    /// conservative scale for `hasBoundary`'s box.
    @usableFromInline let minimumMetresPerLongitudeDegree: Double

    /// How far past its ends (degrees, ~0.1 mm) an edge is listed in cells: far more than the rounding of any
    /// intersection computed here, so a point in a cell with no edges is never within rounding of one.
    @usableFromInline static let slack = 1e-9

    /// Every ring's edges (shells and holes of every part), repeated vertices left out.
    static func edges(of set: PolygonSet) -> [Edge] {
        var edges: [Edge] = []
        for polygon in set.polygons {
            for ring in polygon where ring.count >= 2 {
                for k in 1..<ring.count {
                    let a = ring[k - 1], b = ring[k]
                    if a == b { continue }
                    edges.append(Edge(ax: a.longitude, ay: a.latitude, bx: b.longitude, by: b.latitude))
                }
            }
        }
        return edges
    }

    public init(_ set: PolygonSet) {
        let edges = Self.edges(of: set)
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for e in edges {
            minX = min(minX, e.ax, e.bx); maxX = max(maxX, e.ax, e.bx)
            minY = min(minY, e.ay, e.by); maxY = max(maxY, e.ay, e.by)
        }
        if edges.isEmpty { minX = 0; maxX = 0; minY = 0; maxY = 0 }
        self.edgeCount = edges.count
        let bounds = BoundingBox(minLatitude: minY, maxLatitude: maxY, minLongitude: minX, maxLongitude: maxX)
        self.bounds = bounds
        // N·cosφ ≥ a·cosφ: dividing by this never under-covers.
        let worstLatitude = max(abs(minY), abs(maxY)) + 1
        self.minimumMetresPerLongitudeDegree = worstLatitude < 89.9
            ? Geodesy.semiMajorAxis * cos(worstLatitude * .pi / 180) * .pi / 180 : 0

        // About two cells per edge, shaped like the box on the ground: fine enough that the inside of a detailed
        // shape is mostly empty cells, small next to the edges themselves (eight bytes per cell).
        let width = (maxX - minX) * max(0.01, cos((minY + maxY) / 2 * .pi / 180)), height = maxY - minY
        let target = Double(min(1 << 16, max(64, edges.count)))
        var columns = 1, rows = 1
        if width > 0, height > 0 {
            let side = (width * height / target).squareRoot()
            columns = max(1, min(4096, Int((width / side).rounded(.up))))
            rows = max(1, min(4096, Int((height / side).rounded(.up))))
        } else if width > 0 {
            columns = Int(min(4096, target))
        } else if height > 0 {
            rows = Int(min(4096, target))
        }
        self.columns = columns
        self.rows = rows
        let columnScale = maxX > minX ? Double(columns) / (maxX - minX) : 0
        let rowScale = maxY > minY ? Double(rows) / (maxY - minY) : 0
        self.columnScale = columnScale
        self.rowScale = rowScale

        // Every cell an edge passes within `slack` of, once each: row by row, the columns the edge's stretch in that
        // row spans. Gathered as (cell, edge) pairs, then counted into place.
        let cellCount = rows * columns
        var pairs: [UInt64] = []
        pairs.reserveCapacity(edges.count * 4)
        let slack = Self.slack
        for (i, e) in edges.enumerated() {
            let lowY = min(e.ay, e.by), highY = max(e.ay, e.by)
            let firstRow = Self.cell(lowY - slack, origin: minY, scale: rowScale, count: rows)
            let lastRow = Self.cell(highY + slack, origin: minY, scale: rowScale, count: rows)
            let inverseDY = e.ay == e.by ? 0 : 1 / (e.by - e.ay)
            for row in firstRow...lastRow {
                var x0 = min(e.ax, e.bx), x1 = max(e.ax, e.bx)
                if e.ay != e.by, firstRow != lastRow {
                    let rowLow = minY + Double(row) / rowScale, rowHigh = minY + Double(row + 1) / rowScale
                    let ta = min(1, max(0, (max(lowY, rowLow - slack) - e.ay) * inverseDY))
                    let tb = min(1, max(0, (min(highY, rowHigh + slack) - e.ay) * inverseDY))
                    let xa = e.ax + ta * (e.bx - e.ax), xb = e.ax + tb * (e.bx - e.ax)
                    x0 = min(xa, xb); x1 = max(xa, xb)
                }
                let first = Self.cell(x0 - slack, origin: minX, scale: columnScale, count: columns)
                let last = Self.cell(x1 + slack, origin: minX, scale: columnScale, count: columns)
                for column in first...last { pairs.append(UInt64(row * columns + column) << 32 | UInt64(i)) }
            }
        }
        precondition(pairs.count < Int(UInt32.max), "a polygon of more edges than a grid can list")

        // One allocation: the cells (and the sentinel), the edge numbers and the edges, each from a cache line.
        let cellBytes = ((cellCount + 1) * MemoryLayout<Cell>.stride + 63) & ~63
        let indexBytes = (max(1, pairs.count) * 4 + 63) & ~63
        let memory = UnsafeMutableRawPointer.allocate(
            byteCount: cellBytes + indexBytes + max(1, edges.count) * MemoryLayout<Edge>.stride, alignment: 64)
        let cells = memory.bindMemory(to: Cell.self, capacity: cellCount + 1)
        let cellEdges = (memory + cellBytes).bindMemory(to: UInt32.self, capacity: max(1, pairs.count))
        let edgeList = (memory + cellBytes + indexBytes).bindMemory(to: Edge.self, capacity: max(1, edges.count))
        edgeList.initialize(from: edges, count: edges.count)
        cells.initialize(repeating: Cell(start: 0, state: Self.edgeCell), count: cellCount + 1)
        for p in pairs { cells[Int(p >> 32) + 1].start += 1 }
        for c in 0..<cellCount { cells[c + 1].start += cells[c].start }
        // Counting sort, stable: each cell's edges in ring order.
        var fill = (0..<cellCount).map { cells[$0].start }
        for p in pairs {
            let c = Int(p >> 32)
            (cellEdges + Int(fill[c])).initialize(to: UInt32(truncatingIfNeeded: p))
            fill[c] += 1
        }
        self.cells = cells
        self.cellEdges = cellEdges
        self.edgeList = edgeList

        // The empty cells' states, row by row from the right: the parity of the crossings of a horizontal line
        // through the row's middle to the right of each cell (each crossing counted in the one cell it falls in).
        // An edge cell notes whether the walk to the nearest empty cell scans fewer edges leftwards.
        var rightward = [Int](repeating: 0, count: columns)
        for row in 0..<rows {
            let y = rowScale > 0 ? minY + (Double(row) + 0.5) / rowScale : minY
            let base = row * columns
            var inside = false, scan = 0
            for column in stride(from: columns - 1, through: 0, by: -1) {
                let c = base + column
                let n = Int(cells[c + 1].start - cells[c].start)
                rightward[column] = scan
                if n == 0 {
                    cells[c].state = inside ? Self.insideCell : Self.outsideCell
                    scan = 0
                    continue
                }
                scan += n
                for k in Int(cells[c].start)..<Int(cells[c + 1].start) {
                    let e = edgeList[Int(cellEdges[k])]
                    guard (e.ay > y) != (e.by > y) else { continue }
                    let xi = e.ax + (y - e.ay) / (e.by - e.ay) * (e.bx - e.ax)
                    if Self.cell(xi, origin: minX, scale: columnScale, count: columns) == column { inside.toggle() }
                }
            }
            scan = 0
            for column in 0..<columns {
                let c = base + column
                let n = Int(cells[c + 1].start - cells[c].start)
                if n == 0 { scan = 0; continue }
                if scan < rightward[column] { cells[c].state = Self.edgeCellWalkingLeft }
                scan += n
            }
        }
    }

    deinit {
        UnsafeMutableRawPointer(cells).deallocate()
    }

    /// Each cell's state, row by row (for tests and diagnostics).
    var cellState: [UInt8] { (0..<rows * columns).map { cells[$0].state } }

    /// The cell index of a coordinate along one axis, clamped to the grid (in floating point first, so a far
    /// coordinate never overflows `Int`).
    @inlinable @inline(__always)
    static func cell(_ v: Double, origin: Double, scale: Double, count: Int) -> Int {
        let f = (v - origin) * scale
        return f >= Double(count - 1) ? count - 1 : f > 0 ? Int(f) : 0
    }

    @inlinable @inline(__always)
    func column(_ x: Double) -> Int { Self.cell(x, origin: bounds.minLongitude, scale: columnScale, count: columns) }

    @inlinable @inline(__always)
    func row(_ y: Double) -> Int { Self.cell(y, origin: bounds.minLatitude, scale: rowScale, count: rows) }

    /// Reads what `locate` will read first for the point (the locator, the point's cell and, when edges pass
    /// through it, the cell's first edge), so a caller can bring several candidates into the cache at once.
    @inlinable
    public func warm(latitude y: Double, longitude x: Double) -> UInt8 {
        let cell = cells[row(y) * columns + column(x)]
        guard cell.state >= Self.edgeCell else { return cell.state }
        return edgeList[Int(cellEdges[Int(cell.start)])].isSeam ? cell.state : cell.state &+ 1
    }

    /// Where the point lies; a point exactly on an edge or vertex is `boundary`.
    @inlinable
    public func locate(latitude y: Double, longitude x: Double) -> Location {
        guard bounds.contains(latitude: y, longitude: x) else { return .outside }
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
            let edge = edgeList[Int(cellEdges[k])]
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
                let edge = edgeList[Int(cellEdges[k])]
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
    /// antimeridian or covers many cells, every edge is.
    @inlinable
    public func hasBoundary(within metres: Double, latitude y: Double, longitude x: Double) -> Bool {
        guard metres > 0, edgeCount > 0 else { return false }
        // A box sure to hold every point within `metres`, without trigonometry: the grid's cells under it are looked
        // at first, and only edges in them measured.
        let dLat = Geodesy.latitudeDegrees(spanning: metres) + Self.slack
        if y - dLat > bounds.maxLatitude || y + dLat < bounds.minLatitude { return false }
        let dLon = dLat <= 1 && minimumMetresPerLongitudeDegree > 0
            ? metres / minimumMetresPerLongitudeDegree * 1.000_001 + Self.slack : .infinity
        let wraps = !(dLon < 180) || x - dLon < -180 || x + dLon > 180
        if !wraps, x - dLon > bounds.maxLongitude || x + dLon < bounds.minLongitude { return false }
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
            for k in 0..<edgeCount where near(edgeList[k]) { return true }
            return false
        }
        for row in firstRow...lastRow {
            let first = row * columns + firstColumn, last = row * columns + lastColumn
            // A row's cells are adjacent, so their edges are one run.
            for k in Int(cells[first].start)..<Int(cells[last + 1].start) where near(edgeList[Int(cellEdges[k])]) { return true }
        }
        return false
    }

    @inlinable
    static func wrap(_ dLon: Double) -> Double {
        dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon
    }
}
