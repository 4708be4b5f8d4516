#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one line splitter, for files, HTTP bodies and streams: cuts a byte stream that arrives in arbitrary chunks
/// into lines numbered from 1 (or, `quoteAware`, CSV records whose quoted fields may hold newlines). Lines wholly
/// inside a chunk are handed out in place (found with `memchr`, nothing copied); only a line split across chunks is
/// gathered, in a buffer kept across lines. A trailing `\r` and a leading UTF-8 byte order mark are removed.
///
/// `keepingNewlines` hands each line over as read instead, with its `\n` (a last line without one gets it), nothing
/// removed and no length limit: the ingest reader frames a body so for decoders that do not number lines themselves
/// (`StreamingRecordDecoder.numbersLines`), and so knows which line each decoded record came from.
public struct LineSplitter: Sendable {
    public struct Line {
        /// Valid only during the callback.
        public var bytes: UnsafeRawBufferPointer
        /// 1-based number of the line the record starts on.
        public var number: Int
        /// 0-based offset of the record's first byte in the whole input.
        public var offset: Int
        /// The record exceeded the length limit; `bytes` is empty.
        public var tooLong: Bool
    }

    /// Records longer than this are reported and dropped, so hostile input cannot make the decoder buffer without bound.
    let maximumLength: Int
    let quoteAware: Bool
    let keepingNewlines: Bool

    private var carry: [UInt8] = []
    private var carryOverflowed = false
    private var nextLineNumber = 1
    private var nextOffset = 0  // input offset of the current record's first byte
    private var consumed = 0  // input offset of the current chunk's first byte
    private var inQuotes = false
    private var embeddedNewlines = 0

    public init(quoteAware: Bool = false, maximumLength: Int = 1 << 24) {
        self.quoteAware = quoteAware
        self.maximumLength = maximumLength
        keepingNewlines = false
    }

    /// Lines as read, with their `\n` (see the type).
    public init(keepingNewlines: Bool) {
        quoteAware = false
        maximumLength = keepingNewlines ? .max : 1 << 24
        self.keepingNewlines = keepingNewlines
    }

    /// Lines (records) handed out so far.
    public var lineNumber: Int { nextLineNumber - 1 }

    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Line) -> Void) {
        var pos = 0
        let n = chunk.count
        defer { consumed += n }
        while pos < n {
            guard let nl = findTerminator(chunk, from: pos) else {
                append(chunk, pos, n)
                return
            }
            let end = keepingNewlines ? nl + 1 : nl
            if carry.isEmpty && !carryOverflowed {
                emit(UnsafeRawBufferPointer(rebasing: chunk[pos..<end]), body)
            } else {
                append(chunk, pos, end)
                emitCarry(body)
            }
            nextOffset = consumed + nl + 1
            pos = nl + 1
        }
    }

    /// Hands out a last line that has no terminating newline.
    public mutating func finish(_ body: (Line) -> Void) {
        if keepingNewlines, !carry.isEmpty { carry.append(10) }
        if !carry.isEmpty || carryOverflowed { emitCarry(body) }
        inQuotes = false
    }

    private mutating func append(_ chunk: UnsafeRawBufferPointer, _ from: Int, _ to: Int) {
        guard !carryOverflowed else { return }
        if carry.count + (to - from) > maximumLength {
            carryOverflowed = true
            carry.removeAll(keepingCapacity: false)
            return
        }
        carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[from..<to]))
    }

    private mutating func emitCarry(_ body: (Line) -> Void) {
        if carryOverflowed {
            body(Line(bytes: UnsafeRawBufferPointer(start: nil, count: 0), number: nextLineNumber, offset: nextOffset,
                      tooLong: true))
            advanceLineNumber()
            carryOverflowed = false
        } else {
            // Moved out so that `emit` may mutate self while the bytes are borrowed.
            var line: [UInt8] = []
            swap(&line, &carry)
            line.withUnsafeBytes { emit($0, body) }
            line.removeAll(keepingCapacity: true)
            swap(&line, &carry)
        }
    }

    private mutating func emit(_ raw: UnsafeRawBufferPointer, _ body: (Line) -> Void) {
        var bytes = raw
        var offset = nextOffset
        if keepingNewlines {
            body(Line(bytes: bytes, number: nextLineNumber, offset: offset, tooLong: false))
            advanceLineNumber()
            return
        }
        if bytes.count > 0, bytes[bytes.count - 1] == 13 { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
        if offset == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            bytes = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(3))
            offset = 3
        }
        if bytes.count > maximumLength {
            body(Line(bytes: UnsafeRawBufferPointer(start: nil, count: 0), number: nextLineNumber, offset: offset,
                      tooLong: true))
        } else {
            body(Line(bytes: bytes, number: nextLineNumber, offset: offset, tooLong: false))
        }
        advanceLineNumber()
    }

    private mutating func advanceLineNumber() {
        nextLineNumber += 1 + embeddedNewlines
        embeddedNewlines = 0
    }

    private mutating func findTerminator(_ chunk: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let base = chunk.baseAddress, from < chunk.count else { return nil }
        if !quoteAware {
            guard let p = memchr(base + from, 10, chunk.count - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(p))
        }
        var i = from
        while i < chunk.count {
            let c = chunk[i]
            if c == 34 {
                inQuotes.toggle()
            } else if c == 10 {
                if !inQuotes { return i }
                embeddedNewlines += 1
            }
            i += 1
        }
        return nil
    }
}
