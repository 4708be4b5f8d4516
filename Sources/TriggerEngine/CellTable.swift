import CPrefetch

/// Open-addressing hash table from a grid cell key to the head of that cell's entry list.
///
/// The index looks up one cell per occupied level for every fix; Swift's `Dictionary` spends most of that time in
/// SipHash, which this table replaces with one multiply (keys are not attacker-chosen: they are cell coordinates).
struct CellTable {
    private var keys: [UInt64]
    private var values: [Int32]
    private var mask: Int
    private(set) var count = 0
    private static let empty = UInt64.max
    private static let tombstone = UInt64.max - 1
    private var tombstones = 0

    init() {
        keys = [UInt64](repeating: CellTable.empty, count: 64)
        values = [Int32](repeating: -1, count: 64)
        mask = 63
    }

    @inline(__always)
    private static func hash(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }

    @inline(__always)
    func lookup(_ key: UInt64) -> Int32? {
        keys.withUnsafeBufferPointer { k in
            var i = Self.hash(key) & mask
            while true {
                let probe = k[i]
                if probe == key { return values[i] }
                if probe == Self.empty { return nil }
                i = (i + 1) & mask
            }
        }
    }

    /// Starts loading the slot `lookup(key)` probes first (its key and its value).
    @inline(__always)
    func prefetch(_ key: UInt64) {
        let i = Self.hash(key) & mask
        keys.withUnsafeBufferPointer { geotrigger_prefetch($0.baseAddress! + i) }
        values.withUnsafeBufferPointer { geotrigger_prefetch($0.baseAddress! + i) }
    }

    subscript(key: UInt64) -> Int32? {
        get { lookup(key) }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    private mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + tombstones + 1) * 4 > keys.count * 3 { grow() }
        var i = Self.hash(key) & mask
        var firstTombstone = -1
        while true {
            let probe = keys[i]
            if probe == key { values[i] = value; return }
            if probe == Self.tombstone, firstTombstone < 0 { firstTombstone = i }
            if probe == Self.empty { break }
            i = (i + 1) & mask
        }
        if firstTombstone >= 0 { i = firstTombstone; tombstones -= 1 }
        keys[i] = key
        values[i] = value
        count += 1
    }

    private mutating func remove(_ key: UInt64) {
        var i = Self.hash(key) & mask
        while true {
            let probe = keys[i]
            if probe == key {
                keys[i] = Self.tombstone
                values[i] = -1
                count -= 1
                tombstones += 1
                return
            }
            if probe == Self.empty { return }
            i = (i + 1) & mask
        }
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        let capacity = max(64, (count + 1) * 4 / 3 * 2).nextPowerOfTwo
        keys = [UInt64](repeating: Self.empty, count: capacity)
        values = [Int32](repeating: -1, count: capacity)
        mask = capacity - 1
        count = 0
        tombstones = 0
        for (k, v) in zip(oldKeys, oldValues) where k != Self.empty && k != Self.tombstone { insert(k, v) }
    }

    var approximateBytes: Int { keys.capacity * 12 }
}

extension Int {
    fileprivate var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
