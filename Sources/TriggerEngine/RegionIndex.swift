#if canImport(Glibc)
import Glibc
#endif
import CPrefetch
import Geometry

/// Which regions' bounding boxes are near a point: a uniform grid, stored contiguously.
///
/// Most regions are filed at one base level, chosen at each rebuild from the median region size, so a query is one
/// cell probe and a short contiguous scan of compact boxes. Regions much larger than the base cell go to the
/// coarser level that fits them (a few cells each). Regions added since the last rebuild sit in a small overflow
/// list that queries scan too; when it, plus entries left by removed regions, grows past a quarter of the index,
/// the grid is rebuilt (amortized O(1) per add). Entries of removed regions are harmless until then: the caller's
/// exact test rejects them.
///
/// Boxes are stored expanded by the region's hysteresis and filed under cells expanded by `accuracyAllowance`, so a
/// fix whose accuracy is within the allowance needs only its own cell.
///
/// Rows of cells are a fixed span of latitude; each row's cells are wider in longitude by 1/cos of the row's
/// latitude, so a cell is about square on the ground at every latitude. With square degrees instead, a region at
/// 80° spans 4–6 times more cells in longitude than the same region at 50°: regions spread over many latitudes
/// were filed at several levels, and a fix then probed every level without its device's cell cache (1M circles
/// between 52° and 86° ran at 0.23 of the rate of 100k between 52° and 63°).
struct RegionIndex {
    /// A box in single precision, rounded outwards: a prefilter before the exact test, at 16 bytes an entry.
    struct CompactBox {
        var minLatitude: Float, maxLatitude: Float, minLongitude: Float, maxLongitude: Float
        init(_ b: BoundingBox) {
            minLatitude = Float(b.minLatitude).nextDown
            maxLatitude = Float(b.maxLatitude).nextUp
            minLongitude = Float(b.minLongitude).nextDown
            maxLongitude = Float(b.maxLongitude).nextUp
        }
        @inline(__always)
        func near(_ lat: Float, _ lon: Float, _ dLat: Float, _ dLon: Float) -> Bool {
            lat >= minLatitude - dLat && lat <= maxLatitude + dLat && lon >= minLongitude - dLon && lon <= maxLongitude + dLon
        }
    }

    /// A device's last base-level cell and its range of entries: fixes of a moving device mostly land in the same
    /// cell, so the probe and the range (two likely cache misses with many cells) are skipped. `key` is the cell's
    /// column and row tagged with the low 11 bits of the grid's version: valid while the frozen grid is the one it
    /// was taken from. Every 2,048 rebuilds the tags repeat, and `cacheEpoch` moves so the engine clears every
    /// device's cache before a stale one could pass for current.
    struct CellCache {
        var key: UInt64 = .max
        var start: UInt32 = 0
        var count: UInt32 = 0
    }

    static let levels = 24
    /// Changes whenever the frozen grid is rebuilt.
    var version: UInt32 = 0
    /// Moves each time the cell caches' version tags wrap around (see `CellCache`).
    var cacheEpoch = 0
    let accuracyAllowance: Double

    // The frozen grid: cell key → range in the entry arrays.
    var cells = CellTable()
    /// Each cell's range in the entry arrays: start and count side by side, one cache miss for both.
    var ranges: [(start: Int32, count: Int32)] = []
    var entrySlots: [Int32] = []
    var entryBoxes: [CompactBox] = []
    var occupiedLevels: [Int] = []
    /// Every live region has one box, so no cell lists a region twice: a one-cell query needs no de-duplication.
    var entriesDistinctPerCell = true

    // Added since the last rebuild: a small grid of linked nodes at the same levels.
    struct OverflowNode {
        var slot: Int32
        var next: Int32
        var box: CompactBox
    }
    var overflowHeads = CellTable()
    var overflowNodes: [OverflowNode] = []
    var overflowLevels: [Int] = []
    var baseLevel = 16
    /// Queries since the last rebuild while the overflow held nodes. With any, every query also probes the overflow
    /// and reads each candidate's stamp (no one-cell fast path): `serve` with 1,000 requests added one by one kept
    /// up to 256 overflow nodes for good, and its query cost 3.5 times replay's share (BENCHMARKS.md §4).
    var overflowQueries = 0

    // Every live region's boxes, for rebuilds.
    var boxesBySlot: [[BoundingBox]] = []
    var count = 0
    var staleEntries = 0
    var frozenRegions = 0

    /// Stale overflow nodes of removed regions are dropped at the next rebuild like any other stale entry.

    init(accuracyAllowance: Double) { self.accuracyAllowance = accuracyAllowance }

    @inline(__always)
    static func cellSize(_ level: Int) -> Double { 360 / Double(1 << level) }

    @inline(__always)
    static func key(level: Int, x: Int, y: Int) -> UInt64 { UInt64(level) << 58 | UInt64(x) << 29 | UInt64(y) }

    @inline(__always)
    static func cell(_ v: Double, origin: Double, level: Int) -> Int { max(0, Int((v + origin) / cellSize(level))) }

    /// The row of cells holding `latitude`.
    @inline(__always)
    static func row(_ latitude: Double, level: Int) -> Int { cell(latitude, origin: 90, level: level) }

    /// The column of `longitude` in row `row`: filing and queries both go through here, so any positive scale per
    /// row is correct; the row's cosine makes cells about square on the ground. Integer arithmetic to the table and
    /// no division: this runs for every fix.
    @inline(__always)
    func column(_ longitude: Double, row: Int, level: Int) -> Int {
        // The row's middle, in eighths of a degree from -90°: (row + ½) · 360 / 2^level · 8.
        let q = min(1440, ((2 &* row &+ 1) &* 1440) >> (level &+ 1))
        let scale = rowScales.withUnsafeBufferPointer { $0[q] }
        return max(0, Int((longitude + 180) * scale * (Double(1 << level) * (1.0 / 360))))
    }

    /// cos(latitude) at each eighth of a degree from -90° (never below 1/64: cells near the poles stay bounded).
    private let rowScales: [Double] = (0...1440).map { (q: Int) -> Double in
        let latitude = Double(q) / 8 - 90
        return max(1.0 / 64, cos(latitude * Double.pi / 180))
    }

    /// While true, inserts only collect boxes; `endBatch()` rebuilds once, or files a small batch in the overflow.
    var batching = false
    /// Slots inserted in the current batch and not yet in the frozen grid (a slot removed and reused may repeat).
    var batchSlots: [Int32] = []

    /// Starts loading the entries a device's cached cell points at (`EngineCore.process(batch:)`): when the device
    /// is still in that cell, its query reads them first.
    @inline(__always)
    func prefetch(_ cache: CellCache) {
        guard cache.count > 0, Int(cache.start) + Int(cache.count) <= entryBoxes.count else { return }
        // Every line of the cell's boxes and slots, up to 16 of boxes (64 entries): with dense regions a cell lists
        // dozens, and loaded one line after the other as the scan reaches them they were most of the query's time.
        let count = min(Int(cache.count), 64)
        entryBoxes.withUnsafeBufferPointer { Self.prefetchLines(of: $0, from: Int(cache.start), count: count) }
        entrySlots.withUnsafeBufferPointer { Self.prefetchLines(of: $0, from: Int(cache.start), count: count) }
    }

    /// Starts loading every cache line of `elements[from ..< from + count]`.
    @inline(__always)
    private static func prefetchLines<T>(of elements: UnsafeBufferPointer<T>, from: Int, count: Int) {
        let first = UnsafeRawPointer(elements.baseAddress! + from)
        let bytes = count * MemoryLayout<T>.stride
        var offset = 0
        while offset < bytes {
            geotrigger_prefetch(first + offset)
            offset += 64
        }
        geotrigger_prefetch(first + bytes - 1)
    }

    /// `prefetch(_:)` for a fix at `latitude`, `longitude`, when one level is occupied: the cached cell's entries
    /// if the fix is still in that cell, else the cell table's slot for its new cell, which the query probes
    /// first (the probe's miss was a third of the query's samples with 100k sparse regions).
    /// Returns the cell's key, for the fix's `query` (`knownKey`), or `unknownKey` when it was not worked out.
    /// `mutating` though it writes nothing: called on the engine core's index from inside `process(batch:)`'s
    /// closure, a non-mutating call was made on a copy of the whole index, once per fix (BENCHMARKS §4.2).
    @inline(__always)
    mutating func prefetch(latitude: Double, longitude: Double, cache: CellCache) -> UInt64 {
        // A fix not yet validated: NaN or out of range would trap in the cell arithmetic (the fix is rejected later).
        guard occupiedLevels.count == 1, abs(latitude) <= 90, abs(longitude) <= 180 else {
            prefetch(cache)
            return RegionIndex.unknownKey
        }
        let key = oneLevelKey(latitude: latitude, longitude: longitude)
        if cache.key == (key & 0x001F_FFFF_FFFF_FFFF) | UInt64(version & 0x7FF) << 53 { prefetch(cache) } else { cells.prefetch(key) }
        return key
    }

    /// No cell has this key (level bits 63–58 all set: there are 24 levels).
    static let unknownKey = UInt64.max

    /// The key of the cell holding the point at the one occupied level.
    @inline(__always)
    private func oneLevelKey(latitude: Double, longitude: Double) -> UInt64 {
        let level = occupiedLevels[0]
        let y = RegionIndex.row(latitude, level: level)
        return RegionIndex.key(level: level, x: column(longitude, row: y, level: level), y: y)
    }

    /// Appends to `out` every slot whose stored box, grown by `margin` metres, contains the point, once each:
    /// `stamps[slot]` is set to `stamp` as a slot is reported (a slot can be met in several cells). `knownKey`: the
    /// point's cell key at the one occupied level when `prefetch(latitude:longitude:cache:)` already worked it out
    /// for this index version (a division and a multiplication saved per fix), else `unknownKey`.
    ///
    /// `mutating` though it changes nothing: the engine passes its other state inout beside it, and a non-mutating
    /// call copied the whole index (209 bytes) onto the stack for every fix.
    @inline(__always)
    mutating func query(latitude: Double, longitude: Double, margin: Double, stamp: UInt32, stamps: inout [UInt32],
               into out: inout [Int32], cache: inout CellCache, knownKey: UInt64 = RegionIndex.unknownKey) {
        let fLat = Float(latitude), fLon = Float(longitude)
        // The margin in degrees costs a cosine: worked out only once some box has to be tested.
        var marginDegrees: (lat: Float, lon: Float)?
        @inline(__always) func margins() -> (lat: Float, lon: Float) {
            if let marginDegrees { return marginDegrees }
            let dLat = margin > 0 ? Geodesy.latitudeDegrees(spanning: margin) : 0
            let dLon = margin > 0 ? Geodesy.longitudeDegrees(spanning: margin, atLatitude: abs(latitude)) : 0
            // Float rounding of the point is covered by widening the test by one float step.
            let m = (Float(dLat).nextUp + fLat.ulp, Float(dLon).nextUp + fLon.ulp)
            marginDegrees = m
            return m
        }
        @inline(__always) func report(_ slot: Int32) {
            if stamps[Int(slot)] != stamp {
                stamps[Int(slot)] = stamp
                out.append(slot)
            }
        }
        let extra = max(0, margin - accuracyAllowance)
        let exLat = extra > 0 ? Geodesy.latitudeDegrees(spanning: extra) : 0
        let exLon = extra > 0 ? Geodesy.longitudeDegrees(spanning: extra, atLatitude: abs(latitude)) : 0
        if !overflowNodes.isEmpty {
            overflowQueries &+= 1
            overflowNodes.withUnsafeBufferPointer { nodes in
                if extra > 0 {
                    // Few nodes by construction (rebuilt past a quarter of the index): a scan is fine here.
                    for n in nodes where n.box.near(fLat, fLon, margins().lat, margins().lon) { report(n.slot) }
                    return
                }
                for level in overflowLevels {
                    let y = RegionIndex.row(latitude, level: level)
                    let key = RegionIndex.key(level: level, x: column(longitude, row: y, level: level), y: y)
                    var e = overflowHeads.lookup(key) ?? -1
                    while e >= 0 {
                        let n = nodes[Int(e)]
                        if n.box.near(fLat, fLon, margins().lat, margins().lon) { report(n.slot) }
                        e = n.next
                    }
                }
            }
        }
        entryBoxes.withUnsafeBufferPointer { boxes in
            entrySlots.withUnsafeBufferPointer { slots in
                // A very inaccurate fix over fine cells: one pass over all entries is cheaper than the cells.
                if extra > 0, let finest = occupiedLevels.last {
                    let size = RegionIndex.cellSize(finest)
                    let scale = max(1.0 / 64, cos(latitude * .pi / 180))
                    if (2 * exLon * scale / size + 2) * (2 * exLat / size + 2) > 1024 {
                        for i in 0..<boxes.count where boxes[i].near(fLat, fLon, margins().lat, margins().lon) { report(slots[i]) }
                        return
                    }
                }
                if extra == 0, occupiedLevels.count == 1 {
                    let key = knownKey != RegionIndex.unknownKey ? knownKey : oneLevelKey(latitude: latitude, longitude: longitude)
                    // Column (bits 29–52: at most 2^23, at level 23) and row (under 2^22), the version's tag above.
                    let tagged = (key & 0x001F_FFFF_FFFF_FFFF) | UInt64(version & 0x7FF) << 53
                    if cache.key != tagged {
                        let r = cells.lookup(key) ?? -1
                        if r >= 0 {
                            let range = ranges[Int(r)]
                            cache = CellCache(key: tagged, start: UInt32(range.start), count: UInt32(range.count))
                        } else {
                            cache = CellCache(key: tagged, start: 0, count: 0)
                        }
                    }
                    let start = Int(cache.start), end = start + Int(cache.count)
                    if entriesDistinctPerCell, overflowNodes.isEmpty {
                        // Each region is in the cell once and nothing was reported before: the slot's stamp is
                        // only written (reading it first was a cache miss per candidate with many regions).
                        if end - start >= Self.branchFreeScan {
                            let first = out.count
                            Self.scanBranchFree(boxes, slots, start..<end, latitude: fLat, longitude: fLon, margins: margins(), into: &out)
                            for k in first..<out.count { stamps[Int(out[k])] = stamp }
                            return
                        }
                        for i in start..<end where boxes[i].near(fLat, fLon, margins().lat, margins().lon) {
                            let slot = slots[i]
                            stamps[Int(slot)] = stamp
                            out.append(slot)
                        }
                        return
                    }
                    for i in start..<end where boxes[i].near(fLat, fLon, margins().lat, margins().lon) { report(slots[i]) }
                    return
                }
                for level in occupiedLevels {
                    let y0 = RegionIndex.row(max(-90, latitude - exLat), level: level)
                    let y1 = RegionIndex.row(min(90, latitude + exLat), level: level)
                    for y in y0...y1 {
                        let x0 = column(max(-180, longitude - exLon), row: y, level: level)
                        let x1 = column(min(180, longitude + exLon), row: y, level: level)
                        for x in x0...x1 {
                            guard let r = cells.lookup(RegionIndex.key(level: level, x: x, y: y)) else { continue }
                            let range = ranges[Int(r)]
                            let start = Int(range.start), end = start + Int(range.count)
                            for i in start..<end where boxes[i].near(fLat, fLon, margins().lat, margins().lon) { report(slots[i]) }
                        }
                    }
                }
            }
        }
    }

    /// Cells listing at least this many entries are scanned without a branch per entry (`scanBranchFree`).
    static let branchFreeScan = 2

    /// Appends the slots of `range` whose box, grown by `margins`, holds the point: `CompactBox.near`'s
    /// comparisons, made without a branch per entry. A cell's test outcomes are unpredictable (with dense regions
    /// it lists dozens of boxes, about half of them holding the point; under `serve`'s fleet workload a handful),
    /// and the mispredicted branches of the entry-by-entry test were most of the query's time. Each comparison
    /// `a >= b` is made as the sign of `a - b`, which IEEE subtraction gets right exactly (the difference of two
    /// finite floats rounds to zero only when they are equal); 64 entries at a time set the bits of a mask, whose
    /// set bits are then appended in order.
    @inline(__always)
    static func scanBranchFree(_ boxes: UnsafeBufferPointer<CompactBox>, _ slots: UnsafeBufferPointer<Int32>, _ range: Range<Int>,
                               latitude: Float, longitude: Float, margins: (lat: Float, lon: Float), into out: inout [Int32]) {
        // Lanes: minimum latitude, maximum latitude, minimum longitude, maximum longitude (`CompactBox`'s order).
        let grow = SIMD4<Float>(-margins.lat, margins.lat, -margins.lon, margins.lon)
        let point = SIMD4<Float>(latitude, latitude, longitude, longitude)
        let signs = SIMD4<Float>(1, -1, 1, -1)
        let zero = SIMD4<Float>(repeating: 0)
        let raw = UnsafeRawPointer(boxes.baseAddress!)
        var chunk = range.lowerBound
        while chunk < range.upperBound {
            let end = min(range.upperBound, chunk + 64)
            var mask: UInt64 = 0
            for i in chunk..<end {
                let box = raw.loadUnaligned(fromByteOffset: i &* MemoryLayout<CompactBox>.stride, as: SIMD4<Float>.self) + grow
                let kept: UInt64 = all((point - box) * signs .>= zero) ? 1 : 0
                mask |= kept &<< UInt64(i &- chunk)
            }
            while mask != 0 {
                out.append(slots[chunk &+ mask.trailingZeroBitCount])
                mask &= mask &- 1
            }
            chunk = end
        }
    }

    /// Approximate bytes held, for the benchmark's memory figures.
    var approximateBytes: Int {
        cells.approximateBytes + entrySlots.capacity * 4 + entryBoxes.capacity * 16 + ranges.capacity * 8
            + boxesBySlot.reduce(0) { $0 + 8 + $1.capacity * 32 }
    }
}
