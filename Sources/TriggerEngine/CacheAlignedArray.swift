import CPrefetch

/// A growable array whose elements start on 64-byte boundaries, so a 64-byte element occupies exactly one cache line.
/// (`ContiguousArray` places elements 32 bytes into its allocation, which splits every such element over two lines.)
/// Reference semantics: it lives inside the engine's state and is never shared.
final class CacheAlignedArray<Element> {
    private var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        base = CacheAlignedArray.allocate(self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        UnsafeMutableRawPointer(base).deallocate()
    }

    private static func allocate(_ n: Int) -> UnsafeMutablePointer<Element> {
        UnsafeMutableRawPointer.allocate(byteCount: n * MemoryLayout<Element>.stride, alignment: max(64, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: n)
    }

    var indices: Range<Int> { 0..<count }

    subscript(i: Int) -> Element {
        // Borrowed, not copied: reading one field of a record retains none of its references.
        @inline(__always) _read {
            precondition(i >= 0 && i < count, "index out of range")
            yield base[i]
        }
        @inline(__always) _modify {
            precondition(i >= 0 && i < count, "index out of range")
            yield &base[i]
        }
    }

    /// Starts loading element `i`'s first cache line, when there is one.
    @inline(__always)
    func prefetch(_ i: Int) {
        if i >= 0 && i < count { geotrigger_prefetch(base + i) }
    }

    /// Starts loading bytes `first` and `last` of the object that element `i`'s reference at byte `field` points
    /// at, reading the reference's bits only: a retain would write that object's first cache line, the very miss
    /// to hide.
    @inline(__always)
    func prefetchReferent(_ i: Int, field: Int, first: Int, last: Int) {
        guard i >= 0 && i < count else { return }
        let object = UnsafeRawPointer(base + i).load(fromByteOffset: field, as: UnsafeRawPointer.self)
        geotrigger_prefetch(object + first)
        geotrigger_prefetch(object + last)
    }

    /// Room for `n` elements without growing (a restore that knows how many it will append).
    func reserveCapacity(_ n: Int) {
        guard n > capacity else { return }
        let bigger = CacheAlignedArray.allocate(n)
        bigger.moveInitialize(from: base, count: count)
        UnsafeMutableRawPointer(base).deallocate()
        base = bigger
        capacity = n
    }

    func append(_ e: Element) {
        if count == capacity {
            let bigger = CacheAlignedArray.allocate(capacity * 2)
            bigger.moveInitialize(from: base, count: count)
            UnsafeMutableRawPointer(base).deallocate()
            base = bigger
            capacity *= 2
        }
        (base + count).initialize(to: e)
        count += 1
    }

    func reduce<R>(_ initial: R, _ next: (R, Element) -> R) -> R {
        var r = initial
        for i in 0..<count { r = next(r, base[i]) }
        return r
    }
}
