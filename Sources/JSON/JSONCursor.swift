/// Writes JSON text through a raw pointer into a fixed scratch buffer (see `JSONWriter.appendThroughCursor`).
///
/// For documents rendered at a high rate whose shape is known when compiling (the notification): every write is
/// a bounds check and a store, where appending to an Array pays a uniqueness and capacity check per call (a fifth
/// of `Output.notificationJSON`'s time before the cursor). A write that does not fit sets `overflowed` and writes
/// nothing more; the caller then starts again with a larger buffer or through the general writer.
///
/// Its methods are `@inlinable`: called from the renderer in another module they would otherwise each be a call,
/// and a notification makes about sixty of them.
public struct JSONCursor {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>
    @usableFromInline var p: UnsafeMutablePointer<UInt8>
    public private(set) var overflowed = false
    @usableFromInline mutating func overflow() { overflowed = true }

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        end = base + buffer.count
        p = base
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: p - base) }

    /// Room for `n` more bytes; false (and `overflowed` set) when there is none.
    @inlinable @inline(__always) mutating func reserve(_ n: Int) -> Bool {
        if end - p >= n, !overflowed { return true }
        overflow()
        return false
    }

    /// `count` bytes from `source`: runs up to 64 bytes (most of a notification's) eight bytes at a time, longer
    /// ones by memmove, whose call costs more than copying a few words.
    @inlinable @inline(__always) mutating func copy(_ source: UnsafePointer<UInt8>, _ count: Int) {
        if count <= 64 {
            var k = 0
            while k + 8 <= count {
                UnsafeMutableRawPointer(p + k).storeBytes(of: UnsafeRawPointer(source + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                k += 8
            }
            while k < count { p[k] = source[k]; k += 1 }
        } else {
            p.update(from: source, count: count)
        }
        p += count
    }

    /// One byte; the caller has reserved room for it.
    @inlinable @inline(__always) mutating func byte(_ b: UInt8) {
        p.pointee = b
        p += 1
    }

    /// Bytes already in their JSON form.
    @inlinable public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, reserve(bytes.count) else { return }
        copy(source, bytes.count)
    }

    /// `s` verbatim: JSON text known when compiling.
    @inlinable @inline(__always) public mutating func literal(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        guard reserve(n) else { return }
        copy(s.utf8Start, n)
    }

    /// UTF-8 bytes with JSON escapes, no quotes (a piece of a longer string value).
    @inlinable public mutating func escaped(_ s: String) {
        // Native and small Strings lend their bytes without a copy of the String (`withUTF8` needs a `var`).
        if s.utf8.withContiguousStorageIfAvailable({ escaped($0) }) == nil {
            var s = s
            s.withUTF8 { escaped($0) }
        }
    }

    @inlinable public mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Six output bytes per input byte at worst (\u00XX).
        guard reserve(utf8.count * 6) else { return }
        JSONWriter.forEachEscapedPiece(utf8, run: { copy($0.baseAddress!, $0.count) }, escape: { copy($0.baseAddress!, $0.count) })
    }

    @inlinable @inline(__always) mutating func unsignedDigits(_ v: UInt64) {
        var digits = 1, limit: UInt64 = 10
        while digits < 20, v >= limit { digits += 1; limit = limit &* 10 }
        var m = v
        for k in stride(from: digits - 1, through: 0, by: -1) {
            p[k] = UInt8(truncatingIfNeeded: m % 10) + 48
            m /= 10
        }
        p += digits
    }

    /// The most bytes `writeNumber` writes.
    public static var numberCapacity: Int { 32 }

    /// `v`'s text as `number(_:)` writes it, at `out` (room for `numberCapacity` bytes); returns its length. For a
    /// value written more than once (a notification's coordinates: in the fix and in a template).
    public static func writeNumber(_ v: Double, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var cursor = JSONCursor(UnsafeMutableBufferPointer(start: out, count: numberCapacity))
        cursor.number(v)
        return cursor.written.count
    }

    /// A number as `JSONWriter.number(_:)` writes it (integral values without ".0", non-finite as null).
    public mutating func number(_ v: Double) {
        guard v.isFinite else { literal("null"); return }
        if v == v.rounded(), abs(v) < 9_007_199_254_740_992 {
            guard reserve(21) else { return }
            if v < 0 { byte(UInt8(ascii: "-")) }
            unsignedDigits(Int64(v).magnitude)
        } else {
            // Double's shortest round-trip text (at most 24 bytes), the text `description` gives, handed over as
            // bytes by `write(to:)`: `description` allocates a String past 15 characters, as most coordinates are.
            guard reserve(Self.numberCapacity) else { return }
            var text = ASCIIText(out: p)
            v.write(to: &text)
            p += text.count
        }
    }

    /// Receives a value's text from its `write(to:)` as bytes at `out` (Double passes its formatting buffer
    /// to `_writeASCII`, the stream's hook for ASCII text).
    struct ASCIIText: TextOutputStream {
        let out: UnsafeMutablePointer<UInt8>
        var count = 0

        mutating func write(_ string: String) {
            for b in string.utf8 { out[count] = b; count += 1 }
        }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            guard let base = buffer.baseAddress else { return }
            (out + count).update(from: base, count: buffer.count)
            count += buffer.count
        }
    }

    /// Up to `capacity` bytes written by `body` at the cursor, which returns how many it wrote.
    @inlinable public mutating func write(upTo capacity: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        guard reserve(capacity) else { return }
        p += body(p)
    }
}

extension JSONWriter {
    /// Writes through a `JSONCursor` on a scratch buffer of `capacity` bytes, then appends what it wrote in one
    /// copy. Returns false, appending nothing, when the text did not fit (the caller tries a larger buffer or the
    /// general writer). Up to `stackCapacity` bytes the buffer is on the stack; past it, a heap allocation.
    public mutating func appendThroughCursor(capacity: Int = Self.stackCapacity, _ body: (inout JSONCursor) -> Void) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var cursor = JSONCursor(scratch)
            body(&cursor)
            guard !cursor.overflowed else { return false }
            rawValue { $0.append(contentsOf: cursor.written) }
            return true
        }
    }

    /// The largest temporary buffer Swift places on the stack on Linux (`withUnsafeTemporaryAllocation`).
    public static var stackCapacity: Int { 1_024 }

    /// What `body` writes through a `JSONCursor` on a stack buffer, as a String made in one allocation; nil when it
    /// did not fit. Through a writer (its array, then the String) it took two allocations and two copies: the
    /// journal thread renders every notification this way (`FiredNotification.jsonLine`).
    public static func stringThroughCursor(_ body: (inout JSONCursor) -> Void) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stackCapacity) { scratch in
            var cursor = JSONCursor(scratch)
            body(&cursor)
            guard !cursor.overflowed else { return nil }
            let written = cursor.written
            return String(unsafeUninitializedCapacity: written.count) { _ = $0.initialize(fromContentsOf: written); return written.count }
        }
    }
}
