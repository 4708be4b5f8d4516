/// Little-endian binary encoding for the journal's records and the checkpoints: fixed-width numbers and
/// length-prefixed strings appended to one growing buffer, reused from record to record. Inlinable: its callers (the
/// journal's encoder) are in other modules, where each number was otherwise a call of its own.
public struct ByteWriter: Sendable {
    public var bytes: [UInt8]

    @inlinable public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable @inline(__always) public mutating func u8(_ v: UInt8) { bytes.append(v) }

    // Byte by byte, least significant first: inlined appends took 4.9 ns per UInt64 against 7.4-8.8 ns for
    // `append(contentsOf:)` of the value's bytes, a call per value that showed as 2 % of `serve`'s CPU under load.
    @inlinable @inline(__always) public mutating func u32(_ v: UInt32) {
        var v = v
        for _ in 0..<4 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v &>>= 8
        }
    }

    @inlinable @inline(__always) public mutating func u64(_ v: UInt64) {
        var v = v
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v &>>= 8
        }
    }

    @inlinable @inline(__always) public mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    @inlinable @inline(__always) public mutating func double(_ v: Double) { u64(v.bitPattern) }
    @inlinable @inline(__always) public mutating func timestamp(_ t: Timestamp) { i64(t.microseconds) }

    /// A presence byte, then the value when present.
    @inlinable @inline(__always) public mutating func optionalDouble(_ v: Double?) {
        if let v { u8(1); double(v) } else { u8(0) }
    }

    @inlinable public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    @inlinable public mutating func optionalString(_ s: String?) {
        if let s { u8(1); string(s) } else { u8(0) }
    }

    /// Appends what `body` writes through a cursor into room for at most `bound` bytes: one capacity check for a
    /// whole run of values instead of one per byte (a fix batch's encoding, on the journal writer's thread).
    @inlinable public mutating func appending(upTo bound: Int, _ body: (inout RawCursor) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: bound))
        let used = bytes.withUnsafeMutableBytes { raw -> Int in
            var cursor = RawCursor(raw.baseAddress! + start)
            body(&cursor)
            return cursor.pointer - (raw.baseAddress! + start)
        }
        precondition(used <= bound, "ByteWriter.appending wrote past its bound")
        bytes.removeLast(bound - used)
    }

    /// Writes little-endian values at a pointer, as `ByteWriter`'s own methods lay them out.
    public struct RawCursor {
        public var pointer: UnsafeMutableRawPointer

        @inlinable init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }

        @inlinable @inline(__always) public mutating func u8(_ v: UInt8) {
            pointer.storeBytes(of: v, as: UInt8.self)
            pointer += 1
        }

        @inlinable @inline(__always) public mutating func u32(_ v: UInt32) {
            pointer.storeBytes(of: v.littleEndian, as: UInt32.self)
            pointer += 4
        }

        @inlinable @inline(__always) public mutating func u64(_ v: UInt64) {
            pointer.storeBytes(of: v.littleEndian, as: UInt64.self)
            pointer += 8
        }

        @inlinable @inline(__always) public mutating func double(_ v: Double) { u64(v.bitPattern) }
        @inlinable @inline(__always) public mutating func timestamp(_ t: Timestamp) { u64(UInt64(bitPattern: t.microseconds)) }

        /// A string as `ByteWriter.string` writes it: its UTF-8 length, then the bytes.
        @inlinable public mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                u32(UInt32(utf8.count))
                if let base = utf8.baseAddress { pointer.copyMemory(from: base, byteCount: utf8.count) }
                pointer += utf8.count
            }
        }
    }

    @inlinable public mutating func bytes(_ b: [UInt8]) {
        u32(UInt32(b.count))
        bytes.append(contentsOf: b)
    }
}
