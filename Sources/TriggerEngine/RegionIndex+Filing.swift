#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// Filing regions: inserts into the overflow, removals, and the rebuild of the frozen grid; the span and level a
/// box is filed at. Queries are in `RegionIndex.swift`, beside the stored arrays they read.
extension RegionIndex {
    /// A box's span in the grid's units (degrees of latitude; longitude scaled by its latitude's cosine).
    static func span(minX: Double, maxX: Double, minY: Double, maxY: Double) -> Double {
        // The latitude nearest the equator has the widest cells in degrees: the span there is the largest.
        let nearest = minY <= 0 && maxY >= 0 ? 0 : min(abs(minY), abs(maxY))
        let scale = max(1.0 / 64, cos(nearest * .pi / 180))
        return max((maxX - minX) * scale, maxY - minY)
    }

    mutating func beginBatch() { batching = true }

    /// Ends a batch: a batch large against the frozen grid rebuilds it; a small one (a piece of a large request
    /// body, applied between fixes) goes to the overflow, so pieces in a row cost amortized O(1) per region as
    /// single adds do, where a rebuild per piece made a body quadratic in its size.
    mutating func endBatch() {
        batching = false
        let added = batchSlots
        batchSlots.removeAll(keepingCapacity: true)
        guard !added.isEmpty else { return }
        if added.count * 4 > frozenRegions { return rebuild() }
        var filed = Set<Int32>()
        for slot in added where filed.insert(slot).inserted {
            fileInOverflow(slot: slot, boxes: boxesBySlot[Int(slot)])
        }
        if overflowNodes.count > max(256, entrySlots.count / 4) { rebuild() }
    }

    /// Files `slot` under its boxes (already expanded by hysteresis).
    mutating func insert(slot: Int32, boxes: [BoundingBox]) {
        while boxesBySlot.count <= Int(slot) { boxesBySlot.append([]) }
        boxesBySlot[Int(slot)] = boxes
        count += 1
        if batching {
            batchSlots.append(slot)
            return
        }
        fileInOverflow(slot: slot, boxes: boxes)
        if overflowNodes.count > max(256, entrySlots.count / 4) { rebuild() }
    }

    /// One node per cell each box covers, at the box's level.
    private mutating func fileInOverflow(slot: Int32, boxes: [BoundingBox]) {
        for b in boxes {
            let f = filedExtent(b)
            let level = RegionIndex.level(forSpan: RegionIndex.span(minX: f.minX, maxX: f.maxX, minY: f.minY, maxY: f.maxY), base: baseLevel)
            if !overflowLevels.contains(level) { overflowLevels.append(level) }
            for y in RegionIndex.row(f.minY, level: level)...RegionIndex.row(f.maxY, level: level) {
                for x in column(f.minX, row: y, level: level)...column(f.maxX, row: y, level: level) {
                    let key = RegionIndex.key(level: level, x: x, y: y)
                    overflowNodes.append(OverflowNode(slot: slot, next: overflowHeads.lookup(key) ?? -1, box: CompactBox(b)))
                    overflowHeads[key] = Int32(overflowNodes.count - 1)
                }
            }
        }
    }

    /// Regions' boxes filed in the overflow, one node per cell (for tests and diagnostics).
    var overflowCount: Int { overflowNodes.count }

    /// Whether queries have paid for a rebuild in overflow probes: after at least 65,536 of them, and eight per
    /// entry, so the rebuild (about linear in the entries) is a small share of the time those queries took. The
    /// engine rebuilds between batches, never inside a query; candidates are sorted by slot afterwards, so the
    /// rebuild changes no answer and no order.
    var wantsRebuild: Bool {
        !overflowNodes.isEmpty && overflowQueries >= max(1 << 16, 8 * (entrySlots.count + overflowNodes.count))
    }

    mutating func remove(slot: Int32) {
        guard Int(slot) < boxesBySlot.count, !boxesBySlot[Int(slot)].isEmpty else { return }
        boxesBySlot[Int(slot)] = []
        count -= 1
        staleEntries += 1
        if staleEntries > max(256, frozenRegions / 4) { rebuild() }
    }

    /// The level a box of this span is filed at, given the base level.
    static func level(forSpan span: Double, base: Int) -> Int {
        // At the base level a region may cover up to 4 cells per axis; larger ones go to the finest level at which
        // they cover at most 2.
        if span <= 3 * cellSize(base) { return base }
        var level = base
        while level > 0, cellSize(level) < span { level -= 1 }
        return level
    }

    /// A box grown by the accuracy allowance: the extent its cells must cover.
    func filedExtent(_ box: BoundingBox) -> (minX: Double, maxX: Double, minY: Double, maxY: Double) {
        let dLat = Geodesy.latitudeDegrees(spanning: accuracyAllowance)
        let dLon = Geodesy.longitudeDegrees(spanning: accuracyAllowance, atLatitude: max(abs(box.minLatitude), abs(box.maxLatitude)))
        return (max(-180, box.minLongitude - dLon), min(180, box.maxLongitude + dLon),
                max(-90, box.minLatitude - dLat), min(90, box.maxLatitude + dLat))
    }

    /// Rebuilds the frozen grid from every live region.
    mutating func rebuild() {
        var spans: [Double] = []
        spans.reserveCapacity(count)
        var filed: [(slot: Int32, box: BoundingBox, minX: Double, maxX: Double, minY: Double, maxY: Double)] = []
        filed.reserveCapacity(count)
        for (slot, boxes) in boxesBySlot.enumerated() {
            for box in boxes {
                let f = filedExtent(box)
                spans.append(RegionIndex.span(minX: f.minX, maxX: f.maxX, minY: f.minY, maxY: f.maxY))
                filed.append((Int32(slot), box, f.minX, f.maxX, f.minY, f.maxY))
            }
        }
        // The base cell is about the median region's size: most regions cover 1–4 cells per axis.
        var base = 0
        if !spans.isEmpty {
            let sorted = spans.sorted()
            let median = sorted[sorted.count / 2]
            while base + 1 < RegionIndex.levels, RegionIndex.cellSize(base + 1) >= median { base += 1 }
        }
        // Counting sort of (cell, entry) pairs into contiguous ranges.
        var pairs: [(key: UInt64, entry: Int32)] = []
        pairs.reserveCapacity(filed.count * 4)
        var levelsSeen = Set<Int>()
        for (e, f) in filed.enumerated() {
            let level = RegionIndex.level(forSpan: spans[e], base: base)
            levelsSeen.insert(level)
            for y in RegionIndex.row(f.minY, level: level)...RegionIndex.row(f.maxY, level: level) {
                for x in column(f.minX, row: y, level: level)...column(f.maxX, row: y, level: level) {
                    pairs.append((RegionIndex.key(level: level, x: x, y: y), Int32(e)))
                }
            }
        }
        pairs.sort { $0.key < $1.key }
        var table = CellTable()
        var cellRanges: [(start: Int32, count: Int32)] = []
        var slots: [Int32] = [], boxes: [CompactBox] = []
        slots.reserveCapacity(pairs.count)
        boxes.reserveCapacity(pairs.count)
        var k = 0
        while k < pairs.count {
            let key = pairs[k].key
            table[key] = Int32(cellRanges.count)
            let start = Int32(slots.count)
            while k < pairs.count, pairs[k].key == key {
                let f = filed[Int(pairs[k].entry)]
                slots.append(f.slot)
                boxes.append(CompactBox(f.box))
                k += 1
            }
            cellRanges.append((start, Int32(slots.count) - start))
        }
        cells = table
        ranges = cellRanges
        entrySlots = slots
        entryBoxes = boxes
        occupiedLevels = levelsSeen.sorted()
        entriesDistinctPerCell = filed.count == boxesBySlot.reduce(0) { $0 + ($1.isEmpty ? 0 : 1) }
        baseLevel = base
        version &+= 1
        if version & 0x7FF == 0 { cacheEpoch += 1 }
        overflowHeads = CellTable()
        overflowNodes.removeAll(keepingCapacity: true)
        overflowLevels.removeAll()
        staleEntries = 0
        frozenRegions = count
        overflowQueries = 0
        // Everything live is in the frozen grid now, the current batch's regions too.
        batchSlots.removeAll(keepingCapacity: true)
    }
}
