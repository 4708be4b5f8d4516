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
/// cost memory and loading time. The locator builds and owns the grid's memory; `PolygonGrid` answers queries.
public final class PolygonLocator: @unchecked Sendable {
    public typealias Location = PolygonGrid.Location
    typealias Edge = PolygonGrid.Edge

    /// What queries read: a value that points into memory this locator owns, so it is valid while the locator
    /// lives. The engine keeps it beside the locator, in an array of its own, and queries through it without
    /// touching (or reference-counting) this object.
    public let grid: PolygonGrid
    public let bounds: BoundingBox
    /// The polygon's edges (each counted once).
    public let edgeCount: Int

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
        self.bounds = BoundingBox(minLatitude: minY, maxLatitude: maxY, minLongitude: minX, maxLongitude: maxX)
        // N·cosφ ≥ a·cosφ: dividing by this never under-covers; nor does rounding it down to a Float.
        let worstLatitude = max(abs(minY), abs(maxY)) + 1
        let metresPerDegree = worstLatitude < 89.9 ? Geodesy.semiMajorAxis * cos(worstLatitude * .pi / 180) * .pi / 180 : 0
        var metresPerDegreeDown = Float(metresPerDegree)
        if Double(metresPerDegreeDown) > metresPerDegree { metresPerDegreeDown = metresPerDegreeDown.nextDown }

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
        let columnScale = maxX > minX ? Double(columns) / (maxX - minX) : 0
        let rowScale = maxY > minY ? Double(rows) / (maxY - minY) : 0

        // Every cell an edge passes within `slack` of, once each: row by row, the columns the edge's stretch in that
        // row spans. Gathered as (cell, edge) pairs, then counted into place.
        let cellCount = rows * columns
        var pairs: [UInt64] = []
        pairs.reserveCapacity(edges.count * 4)
        let slack = PolygonGrid.slack
        for (i, e) in edges.enumerated() {
            let lowY = min(e.ay, e.by), highY = max(e.ay, e.by)
            let firstRow = PolygonGrid.cell(lowY - slack, origin: minY, scale: rowScale, count: rows)
            let lastRow = PolygonGrid.cell(highY + slack, origin: minY, scale: rowScale, count: rows)
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
                let first = PolygonGrid.cell(x0 - slack, origin: minX, scale: columnScale, count: columns)
                let last = PolygonGrid.cell(x1 + slack, origin: minX, scale: columnScale, count: columns)
                for column in first...last { pairs.append(UInt64(row * columns + column) << 32 | UInt64(i)) }
            }
        }

        // One allocation (`PolygonGrid` describes its layout): the cells and the sentinel, each cell's edges as
        // byte offsets, the edges.
        let cellBytes = PolygonGrid.cellBytes(cellCount)
        let offsetBytes = (max(1, pairs.count) * 4 + 63) & ~63
        let byteCount = cellBytes + offsetBytes + max(1, edges.count) * MemoryLayout<PolygonGrid.Edge>.stride
        precondition(byteCount < Int(UInt32.max), "a polygon of more edges than a grid can list")
        let memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        let cells = memory.bindMemory(to: PolygonGrid.Cell.self, capacity: cellCount + 1)
        let offsets = (memory + cellBytes).bindMemory(to: UInt32.self, capacity: max(1, pairs.count))
        let edgeList = (memory + cellBytes + offsetBytes).bindMemory(to: PolygonGrid.Edge.self, capacity: max(1, edges.count))
        edgeList.initialize(from: edges, count: edges.count)
        cells.initialize(repeating: PolygonGrid.Cell(start: 0, state: PolygonGrid.edgeCell), count: cellCount + 1)
        for p in pairs { cells[Int(p >> 32) + 1].start += 1 }
        for c in 0..<cellCount { cells[c + 1].start += cells[c].start }
        // Counting sort, stable: each cell's edges in ring order.
        var fill = (0..<cellCount).map { cells[$0].start }
        let firstEdge = cellBytes + offsetBytes, edgeStride = MemoryLayout<PolygonGrid.Edge>.stride
        for p in pairs {
            let c = Int(p >> 32), e = Int(UInt32(truncatingIfNeeded: p))
            (offsets + Int(fill[c])).initialize(to: UInt32(firstEdge + e * edgeStride))
            fill[c] += 1
        }

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
                    cells[c].state = inside ? PolygonGrid.insideCell : PolygonGrid.outsideCell
                    scan = 0
                    continue
                }
                scan += n
                for k in Int(cells[c].start)..<Int(cells[c + 1].start) {
                    let e = edges[Int((Int(offsets[k]) - firstEdge) / edgeStride)]
                    guard (e.ay > y) != (e.by > y) else { continue }
                    let xi = e.ax + (y - e.ay) / (e.by - e.ay) * (e.bx - e.ax)
                    if PolygonGrid.cell(xi, origin: minX, scale: columnScale, count: columns) == column { inside.toggle() }
                }
            }
            scan = 0
            for column in 0..<columns {
                let c = base + column
                let n = Int(cells[c + 1].start - cells[c].start)
                if n == 0 { scan = 0; continue }
                if scan < rightward[column] { cells[c].state = PolygonGrid.edgeCellWalkingLeft }
                scan += n
            }
        }
            grid = PolygonGrid(
            minLongitude: minX, minLatitude: minY, maxLongitude: maxX, maxLatitude: maxY,
            columnScale: columnScale, rowScale: rowScale, base: memory,
            columns: UInt16(columns), rows: UInt16(rows), minimumMetresPerLongitudeDegree: metresPerDegreeDown)
    }

    deinit {
        grid.base.deallocate()
    }

    /// Each cell's state, row by row (for tests and diagnostics).
    var cellState: [UInt8] { (0..<grid.cellCount).map { grid.cells[$0].state } }

    @inlinable
    public func locate(latitude y: Double, longitude x: Double) -> Location { grid.locate(latitude: y, longitude: x) }

    @inlinable
    public func hasBoundary(within metres: Double, latitude y: Double, longitude x: Double) -> Bool {
        grid.hasBoundary(within: metres, latitude: y, longitude: x)
    }
}
