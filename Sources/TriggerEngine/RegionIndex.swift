import Geometry

/// Which regions' bounding boxes are near a point: a multi-level grid (cell sizes 360°/2^L).
///
/// Each region goes into the finest level whose cell is at least as large as its box, so it occupies at most 2×2
/// cells there, and a query looks up one cell per occupied level. Regions of similar size (the usual fence set)
/// share one or two levels. Cells hold singly linked lists in flat arrays: adding and removing a region is O(1)
/// amortized, and a query allocates nothing.
///
/// Boxes are stored expanded by the region's hysteresis, and the cells they are filed under by a further
/// `accuracyAllowance`, so a fix whose accuracy is within the allowance needs only the point's own cell.
struct RegionIndex {
    struct Entry {
        var slot: Int32
        var next: Int32
        var box: BoundingBox
    }

    static let levels = 23
    let accuracyAllowance: Double

    private var heads: [UInt64: Int32] = [:]
    private var entries: [Entry] = []
    private var freeEntries: [Int32] = []
    private var keysBySlot: [[UInt64]] = []
    private var levelPopulation = [Int](repeating: 0, count: RegionIndex.levels)
    private(set) var count = 0

    init(accuracyAllowance: Double) { self.accuracyAllowance = accuracyAllowance }

    @inline(__always)
    static func cellSize(_ level: Int) -> Double { 360 / Double(1 << level) }

    @inline(__always)
    static func key(level: Int, x: Int, y: Int) -> UInt64 { UInt64(level) << 58 | UInt64(x) << 29 | UInt64(y) }

    @inline(__always)
    static func cell(_ v: Double, origin: Double, level: Int) -> Int {
        max(0, Int((v + origin) / cellSize(level)))
    }

    /// Files `slot` under its boxes (already expanded by hysteresis).
    mutating func insert(slot: Int32, boxes: [BoundingBox]) {
        var keys: [UInt64] = []
        for box in boxes {
            let dLat = Geodesy.latitudeDegrees(spanning: accuracyAllowance)
            let dLon = Geodesy.longitudeDegrees(
                spanning: accuracyAllowance, atLatitude: max(abs(box.minLatitude), abs(box.maxLatitude)))
            let minX = max(-180, box.minLongitude - dLon), maxX = min(180, box.maxLongitude + dLon)
            let minY = max(-90, box.minLatitude - dLat), maxY = min(90, box.maxLatitude + dLat)
            let span = max(maxX - minX, maxY - minY)
            var level = 0
            while level + 1 < RegionIndex.levels, RegionIndex.cellSize(level + 1) >= span { level += 1 }
            for x in RegionIndex.cell(minX, origin: 180, level: level)...RegionIndex.cell(maxX, origin: 180, level: level) {
                for y in RegionIndex.cell(minY, origin: 90, level: level)...RegionIndex.cell(maxY, origin: 90, level: level) {
                    let key = RegionIndex.key(level: level, x: x, y: y)
                    let e: Int32
                    let entry = Entry(slot: slot, next: heads[key] ?? -1, box: box)
                    if let free = freeEntries.popLast() {
                        e = free
                        entries[Int(e)] = entry
                    } else {
                        e = Int32(entries.count)
                        entries.append(entry)
                    }
                    heads[key] = e
                    keys.append(key)
                    levelPopulation[level] += 1
                }
            }
        }
        while keysBySlot.count <= Int(slot) { keysBySlot.append([]) }
        keysBySlot[Int(slot)] = keys
        count += 1
    }

    mutating func remove(slot: Int32) {
        guard Int(slot) < keysBySlot.count else { return }
        let keys = keysBySlot[Int(slot)]
        guard !keys.isEmpty else { return }
        for key in keys {
            var previous: Int32 = -1
            var e = heads[key] ?? -1
            while e >= 0 {
                let next = entries[Int(e)].next
                if entries[Int(e)].slot == slot {
                    if previous < 0 {
                        if next < 0 { heads[key] = nil } else { heads[key] = next }
                    } else {
                        entries[Int(previous)].next = next
                    }
                    entries[Int(e)].slot = -1
                    freeEntries.append(e)
                    levelPopulation[Int(key >> 58)] -= 1
                    break
                }
                previous = e
                e = next
            }
        }
        keysBySlot[Int(slot)] = []
        count -= 1
    }

    /// Calls `body` with every slot whose stored box, grown by `margin` metres, contains the point. A slot may be
    /// reported more than once (regions split at the antimeridian, wide margins): callers de-duplicate.
    @inline(__always)
    func query(latitude: Double, longitude: Double, margin: Double, _ body: (Int32) -> Void) {
        let dLat = margin > 0 ? Geodesy.latitudeDegrees(spanning: margin) : 0
        let dLon = margin > 0 ? Geodesy.longitudeDegrees(spanning: margin, atLatitude: abs(latitude)) : 0
        let extra = max(0, margin - accuracyAllowance)
        let exLat = extra > 0 ? Geodesy.latitudeDegrees(spanning: extra) : 0
        let exLon = extra > 0 ? Geodesy.longitudeDegrees(spanning: extra, atLatitude: abs(latitude)) : 0
        entries.withUnsafeBufferPointer { entries in
            // The finest occupied level has the most cells to visit; if even that is too many (a very inaccurate
            // fix over small fences), one pass over all entries is cheaper than the cells.
            if extra > 0, let finest = (0..<RegionIndex.levels).last(where: { levelPopulation[$0] > 0 }) {
                let size = RegionIndex.cellSize(finest)
                let cells = (2 * exLon / size + 2) * (2 * exLat / size + 2)
                if cells > 1024 {
                    for entry in entries where entry.slot >= 0 && Self.near(entry.box, latitude, longitude, dLat, dLon) {
                        body(entry.slot)
                    }
                    return
                }
            }
            for level in 0..<RegionIndex.levels where levelPopulation[level] > 0 {
                let x0 = RegionIndex.cell(max(-180, longitude - exLon), origin: 180, level: level)
                let x1 = RegionIndex.cell(min(180, longitude + exLon), origin: 180, level: level)
                let y0 = RegionIndex.cell(max(-90, latitude - exLat), origin: 90, level: level)
                let y1 = RegionIndex.cell(min(90, latitude + exLat), origin: 90, level: level)
                for x in x0...x1 {
                    for y in y0...y1 {
                        guard var e = heads[RegionIndex.key(level: level, x: x, y: y)] else { continue }
                        while e >= 0 {
                            let entry = entries[Int(e)]
                            if Self.near(entry.box, latitude, longitude, dLat, dLon) { body(entry.slot) }
                            e = entry.next
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    static func near(_ b: BoundingBox, _ lat: Double, _ lon: Double, _ dLat: Double, _ dLon: Double) -> Bool {
        lat >= b.minLatitude - dLat && lat <= b.maxLatitude + dLat && lon >= b.minLongitude - dLon
            && lon <= b.maxLongitude + dLon
    }

    /// Approximate bytes held, for the benchmark's memory figures.
    var approximateBytes: Int {
        entries.capacity * MemoryLayout<Entry>.stride + heads.capacity * 24
            + keysBySlot.reduce(0) { $0 + 32 + $1.capacity * 8 }
    }
}
