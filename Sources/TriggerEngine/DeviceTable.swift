import CPrefetch

/// Device name → device record index, as one open-addressing array of (hash, index) words.
///
/// `Dictionary<String, Int32>` keeps hashes, keys and values in separate arrays: up to three cache misses per fix
/// with many devices. Here a probe reads one word; the name itself is confirmed against the device record, which
/// the fix needs next anyway.
struct DeviceTable {
    private var words: [UInt64]
    private var mask: Int
    private(set) var count = 0
    private var tombstones = 0
    private static let empty = UInt64.max
    private static let tombstone = UInt64.max - 1

    init() {
        words = [UInt64](repeating: DeviceTable.empty, count: 1024)
        mask = 1023
    }

    /// FNV-1a over the UTF-8 bytes (keys are device ids: no hash-flooding concern worth SipHash's cost here,
    /// and the table degrades gracefully under collisions).
    @inline(__always)
    static func hash(_ name: String) -> UInt32 {
        var copy = name
        return copy.withUTF8 { bytes in
            var h: UInt32 = 2_166_136_261
            for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
            return h
        }
    }

    @inline(__always)
    func find(_ name: String, hash h: UInt32, names: (Int32) -> Bool) -> Int32? {
        words.withUnsafeBufferPointer { w in
            var i = Int(h) & mask
            while true {
                let word = w[i]
                if word == Self.empty { return nil }
                if word != Self.tombstone, UInt32(truncatingIfNeeded: word >> 32) == h {
                    let index = Int32(truncatingIfNeeded: word & 0xFFFF_FFFF)
                    if names(index) { return index }
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Starts loading the word where a probe for `h` begins (`EngineCore.process(batch:)`).
    @inline(__always)
    func prefetch(hash h: UInt32) {
        words.withUnsafeBufferPointer { geotrigger_prefetch($0.baseAddress! + (Int(h) & mask)) }
    }

    /// The record index of the first word with hash `h`, the name unchecked: only for prefetching, where a wrong
    /// guess costs a load and nothing else.
    @inline(__always)
    func guess(hash h: UInt32) -> Int32? { find("", hash: h, names: { _ in true }) }

    mutating func insert(hash h: UInt32, index: Int32) {
        if (count + tombstones + 1) * 4 > words.count * 3 { rehash(to: words.count * 2) }
        var i = Int(h) & mask
        while words[i] != Self.empty && words[i] != Self.tombstone { i = (i + 1) & mask }
        if words[i] == Self.tombstone { tombstones -= 1 }
        words[i] = UInt64(h) << 32 | UInt64(UInt32(bitPattern: index))
        count += 1
    }

    mutating func remove(hash h: UInt32, index: Int32) {
        let target = UInt64(h) << 32 | UInt64(UInt32(bitPattern: index))
        var i = Int(h) & mask
        while words[i] != Self.empty {
            if words[i] == target {
                words[i] = Self.tombstone
                count -= 1
                tombstones += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Room for `n` devices without rehashing on the way (a restore of a checkpoint that says how many).
    mutating func reserve(_ n: Int) {
        var capacity = words.count
        while (n + tombstones) * 4 > capacity * 3 { capacity *= 2 }
        if capacity > words.count { rehash(to: capacity) }
    }

    private mutating func rehash(to capacity: Int) {
        let old = words
        words = [UInt64](repeating: Self.empty, count: capacity)
        mask = capacity - 1
        count = 0
        tombstones = 0
        for w in old where w != Self.empty && w != Self.tombstone {
            insert(hash: UInt32(truncatingIfNeeded: w >> 32), index: Int32(truncatingIfNeeded: w & 0xFFFF_FFFF))
        }
    }
}
