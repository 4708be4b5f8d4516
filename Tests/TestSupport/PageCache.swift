#if canImport(Glibc)
import Glibc
#endif

/// Which pages of a file are in the page cache (`mincore` over a read-only mapping, which faults nothing in).
public enum PageCache {
    /// Resident pages among the whole pages of `path` before `end` bytes, and how many there are; nil where the
    /// answer means nothing: the file system keeps synced pages whatever it is told (a tmpfs: its files live in
    /// the cache), or the file cannot be mapped.
    public static func residentWholePages(_ path: String, before end: Int) -> (resident: Int, pages: Int)? {
        guard releasesSyncedPages(besides: path) else { return nil }
        return resident(path, before: end)
    }

    /// Whether a synced file beside `path` leaves the cache when told to (`POSIX_FADV_DONTNEED`).
    static func releasesSyncedPages(besides path: String) -> Bool {
        let probe = path + ".cache-probe"
        defer { unlink(probe) }
        let fd = open(probe, O_CREAT | O_TRUNC | O_WRONLY, 0o644)
        guard fd >= 0 else { return false }
        let bytes = [UInt8](repeating: 1, count: 8 * 4096)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let released = written == bytes.count && fsync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0
        close(fd)
        return released && resident(probe, before: bytes.count)?.resident == 0
    }

    static func resident(_ path: String, before end: Int) -> (resident: Int, pages: Int)? {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = end / page
        guard pages > 0 else { return (0, 0) }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let map = mmap(nil, pages * page, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, pages * page) }
        var vector = [UInt8](repeating: 0, count: pages)
        guard mincore(map, pages * page, &vector) == 0 else { return nil }
        return (vector.reduce(0) { $0 + Int($1 & 1) }, pages)
    }
}
