#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TriggerEngine

/// Reads a btsnoop version 1 file record by record, from a file (streamed through a 64 KiB buffer, so a capture of
/// any size reads in constant memory) or from bytes in memory.
///
/// Every length is checked against the bytes present; a bad file ends with a `BTSnoopError` naming the record
/// (1-based) and its byte offset, never with a trap. Owns its file descriptor and closes it in `deinit`.
public final class BTSnoopReader {
    /// Records longer than this are rejected as corrupt (HCI packets are at most 64 KiB; monitor records a little more).
    public static let maximumRecordLength: UInt32 = 1 << 20
    static let headerLength = 16
    static let recordHeaderLength = 24
    static let magic: [UInt8] = Array("btsnoop\0".utf8)

    public private(set) var datalink: BTSnoopDatalink
    public private(set) var version: UInt32
    /// Records read so far.
    public private(set) var recordCount = 0

    private var fd: Int32
    private var buffer: [UInt8]
    private var head = 0
    private var tail: Int
    /// File offset of `buffer[0]`.
    private var bufferOffset = 0
    private var atEOF: Bool

    /// Reads from memory: no file descriptor, no copying.
    public convenience init(bytes: [UInt8]) throws(BTSnoopError) {
        try self.init(fd: -1, initial: bytes)
    }

    public convenience init(path: String) throws(BTSnoopError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        // From here the reader owns `fd`: the designated initializer closes it if the header is bad.
        try self.init(fd: fd, initial: [])
    }

    private init(fd: Int32, initial: [UInt8]) throws(BTSnoopError) {
        self.fd = fd
        self.buffer = fd < 0 ? initial : [UInt8](repeating: 0, count: 1 << 16)
        self.tail = fd < 0 ? initial.count : 0
        self.atEOF = fd < 0
        self.datalink = .h4
        self.version = 0
        // Header: "btsnoop\0", version (u32 BE), datalink (u32 BE).
        let header: (version: UInt32, datalink: UInt32)
        do throws(BTSnoopError) {
            guard try fill(Self.headerLength) else { throw BTSnoopError.truncatedHeader(available: tail - head) }
            guard buffer[head..<(head + 8)].elementsEqual(Self.magic) else { throw BTSnoopError.notBTSnoop }
            header = (be32(head + 8), be32(head + 12))
        } catch {
            closeFD()
            throw error
        }
        guard header.version == 1 else { closeFD(); throw .unsupportedVersion(header.version) }
        guard let link = BTSnoopDatalink(rawValue: header.datalink) else {
            closeFD()
            throw .unsupportedDatalink(header.datalink)
        }
        self.version = header.version
        self.datalink = link
        head += Self.headerLength
    }

    deinit { closeFD() }

    /// The next record, or nil at the end of the file.
    public func next() throws(BTSnoopError) -> BTSnoopRecord? {
        let number = recordCount + 1
        let offset = bufferOffset + head
        guard try fill(Self.recordHeaderLength) else {
            if tail == head { return nil }
            throw .truncatedRecord(record: number, offset: offset, needed: Self.recordHeaderLength, available: tail - head)
        }
        let original = be32(head), included = be32(head + 4), flags = be32(head + 8), drops = be32(head + 12)
        let time = UInt64(be32(head + 16)) << 32 | UInt64(be32(head + 20))
        guard included <= original, included <= Self.maximumRecordLength else {
            throw .badRecordLength(record: number, offset: offset, included: included, original: original)
        }
        let total = Self.recordHeaderLength + Int(included)
        guard try fill(total) else {
            throw .truncatedRecord(record: number, offset: offset, needed: total, available: tail - head)
        }
        let dataStart = head + Self.recordHeaderLength
        let record = BTSnoopRecord(number: number, offset: offset, datalink: datalink, originalLength: original,
                                   flags: flags, cumulativeDrops: drops, timestamp: BTSnoopRecord.timestamp(btsnoop: time),
                                   data: buffer[dataStart..<(dataStart + Int(included))])
        head += total
        recordCount = number
        return record
    }

    /// Closes the file now rather than at `deinit`. Further `next()` calls report the end of the file.
    public func close() {
        closeFD()
        atEOF = true
        head = tail
    }

    private func closeFD() {
        if fd >= 0 { closeDescriptor(fd); fd = -1 }
    }

    private func be32(_ i: Int) -> UInt32 {
        UInt32(buffer[i]) << 24 | UInt32(buffer[i + 1]) << 16 | UInt32(buffer[i + 2]) << 8 | UInt32(buffer[i + 3])
    }

    /// Makes at least `n` unread bytes available; false when the file ends first.
    private func fill(_ n: Int) throws(BTSnoopError) -> Bool {
        if tail - head >= n { return true }
        if atEOF { return false }
        if head + n > buffer.count {
            // Slide the unread bytes to the front, growing the buffer for an unusually long record.
            let unread = Array(buffer[head..<tail])
            if n > buffer.count { buffer = [UInt8](repeating: 0, count: max(n, buffer.count * 2)) }
            buffer.replaceSubrange(0..<unread.count, with: unread)
            bufferOffset += head
            tail -= head
            head = 0
        }
        while tail - head < n {
            let count = buffer.count - tail
            let got = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress! + tail, count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", errno: errno)
            }
            if got == 0 { atEOF = true; return false }
            tail += got
        }
        return true
    }
}
