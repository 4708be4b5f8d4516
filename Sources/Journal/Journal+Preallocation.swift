import SystemErrors
import Dispatch
import Synchronization
import Logging
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The spare segment: sized to the input rate, zeroed ahead on its own thread, taken at rotation.
extension Journal {
    /// Bytes in the current segment (which ends at `limit`) from which the next one's spare is prepared.
    static func spareThreshold(_ c: Configuration, limit: Int64) -> Int64 {
        min(Int64(c.preallocateAfter), limit / 4)
    }

    /// The next spare's size: about `segmentSeconds` of what the current segment received since it began, in whole
    /// MiB (whole blocks below one), between `minimumSegmentBytes` and `segmentBytes`, and at most twice the
    /// current segment (or what an appended one received): a burst, such as a large regions file loaded at start,
    /// does not size a gateway's segments for a rate it never sees again; sustained load doubles them segment by
    /// segment. Nothing received yet (a restart, or a new journal's first segment): the minimum.
    static func spareSize(_ c: Configuration, _ s: borrowing State) -> Int {
        let low = min(c.minimumSegmentBytes, c.segmentBytes)
        let received = Double(s.fileSize - s.sizeAtBegin)
        let seconds = max((ContinuousClock.now - s.began) / .seconds(1), 0.001)
        let wanted = min(received / seconds * c.segmentSeconds, 2 * (s.appended ? received : Double(s.limit)))
        guard wanted.isFinite, wanted > Double(low) else { return low }
        let unit = wanted >= Double(1 << 20) ? 1 << 20 : DirectTail.alignment
        let rounded = (min(wanted, Double(c.segmentBytes)) / Double(unit)).rounded(.up) * Double(unit)
        return max(low, min(c.segmentBytes, Int(rounded)))
    }


    /// Writes a spare segment file of `size` zeros and makes it durable, in the background, unless one is ready.
    func prepareSpare(size: Int) {
        guard configuration.preallocate else { return }
        spareQueue.async { [self] in
            guard spare.withLock({ $0 == nil }), !poisoned.load(ordering: .acquiring) else { return }
            let path = sparePath
            var fs = statvfs()
            guard statvfs(directory, &fs) == 0, Int(fs.f_bavail) * Int(fs.f_frsize) >= 2 * size else {
                logger.debug("journal: too little free space to preallocate the next segment", metadata: ["bytes": "\(size)"])
                return
            }
            do {
                var direct = true
                let fd = try DirectTail.create(path) ?? {
                    direct = false
                    return try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate],
                                                   permissions: [.ownerReadWrite, .groupRead, .otherRead])
                }()
                do {
                    if direct {
                        switch DirectTail.writeZeros(fd, size: size) {
                        case nil: break
                        case .invalidArgument?:
                            DirectTail.stopDirect(fd)
                            direct = false
                        case let error?: throw error
                        }
                    }
                    if !direct {
                        let zeros = [UInt8](repeating: 0, count: min(size, 1 << 20))
                        var at = 0
                        while at < size {
                            let n = min(zeros.count, size - at)
                            at += try zeros.withUnsafeBytes { try fd.write(toAbsoluteOffset: Int64(at), UnsafeRawBufferPointer(rebasing: $0[0..<n]), retryOnInterrupt: true) }
                        }
                    }
                    try JournalSystem.fsync(fd, path: path)
                } catch {
                    try? fd.close()
                    throw error
                }
                spare.withLock { $0 = (fd, direct, size) }
            } catch {
                unlink(path)
                logger.warning("journal: could not preallocate the next segment; it grows as it is written", metadata: [
                    "file": "\(path)", "reason": "\(error)"])
            }
        }
    }

    /// The prepared spare, once a preparation under way has finished (a rotation that comes first waits for it);
    /// nil when there is none.
    func takeSpare() -> (fd: FileDescriptor, direct: Bool, size: Int)? {
        guard configuration.preallocate else { return nil }
        return spareQueue.sync { spare.withLock { taken in defer { taken = nil }; return taken } }
    }

    /// Gives the spare its header (durable before the rename makes it a segment) and its segment's name; nil,
    /// with the spare deleted, when that fails. The inner value: the tail a direct spare is written through, or
    /// nil for a buffered one.
    func beginPreallocated(_ segment: JournalSegment, in fd: FileDescriptor, direct: Bool) -> DirectTail?? {
        do {
            let header = JournalSegment.header(segment.firstPosition, preallocated: true)
            var tail: DirectTail? = direct ? DirectTail() : nil
            if let direct = tail {
                switch header.withUnsafeBytes({ direct.write(fd, at: 0, $0, UnsafeRawBufferPointer(start: nil, count: 0)) }) {
                case nil: break
                case .invalidArgument?:
                    DirectTail.stopDirect(fd)
                    tail = nil
                case let error?: throw error
                }
            }
            if tail == nil { _ = try fd.writeAll(toAbsoluteOffset: 0, header) }
            try JournalSystem.fsync(fd, path: sparePath)
            guard rename(sparePath, segment.path) == 0 else {
                throw JournalError.io(operation: "rename", path: sparePath, reason: SystemError.text())
            }
            return .some(tail)
        } catch {
            try? fd.close()
            unlink(sparePath)
            logger.warning("journal: a preallocated segment could not be begun; this one grows as it is written", metadata: [
                "file": "\(segment.path)", "reason": "\(error)"])
            return nil
        }
    }
}
